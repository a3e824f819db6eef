"""The porting corpus: pinned PyPI extensions, one recipe each.

A recipe is data only; run.py is the one pipeline every recipe goes
through.  Fields:

    name          the corpus name (build/corpus/<name>/, the results' key)
    requirement   the pinned release, as pip spells it
    sha256        of the sdist; checked on every use
    language      "C" or "C++"
    exercises     what of the C API the extension's own tests exercise
    translate     paths in the sdist given to cystck-migrate (files or
                  folders; files that use no Python API are copied as they are)
    extensions    the setuptools Extension names built with Cystck
    modules       the compiled modules the tests must import (default: the
                  extension names; they differ under setup(ext_package=...))
    import_root   the folder of the sdist that goes on sys.path (where
                  `build_ext --inplace` puts the shared libraries)
    env           environment of the builds and the tests: what disables the
                  pure-Python fallback
    requirements  installed with --no-deps into build/corpus/<name>/deps:
                  the build's setuptools and the tests' own requirements
    tests         pytest arguments selecting the upstream tests
    quick_tests   a smaller selection for the quick run (None: all of `tests`)
    in_quick_run  False leaves the recipe out of the quick run (`make test`):
                  its whole pipeline takes more than 90 s, or its Cystck
                  build does not pass yet
    pytest_args   further pytest options the layout needs
    cflags        extra flags for `cystck-migrate --check`: {upstream} is the
                  unpacked sdist, {output} the translator's output
    generated     files the extension's setup.py writes before compiling (not
                  in the sdist, e.g. a version header): --check compiles the
                  output as the build will, so it takes them from the stock
                  build, which runs before the translation (run.py,
                  generated_includes; listed in the results)
    stock_reference  passed/failed/skipped of the stock build measured when
                  the corpus was chosen (issue #19), shown beside ours

Proof that the compiled module is tested: the corpus_probe plugin runs
inside each test session and records, at its end, whether every module of
`compiled` was imported as a shared library from the tree under test.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# A setuptools that reads every sdist's pyproject.toml (PEP 639 licences).
SETUPTOOLS = "setuptools==80.9.0"


@dataclass(frozen=True)
class Recipe:
    name: str
    requirement: str
    sha256: str
    language: str
    exercises: str
    translate: tuple[str, ...]
    extensions: tuple[str, ...]
    tests: tuple[str, ...]
    stock_reference: tuple[int, int, int]
    import_root: str = "."
    env: dict = field(default_factory=dict)
    requirements: tuple[str, ...] = (SETUPTOOLS,)
    quick_tests: tuple[str, ...] | None = None
    in_quick_run: bool = True
    pytest_args: tuple[str, ...] = ()
    cflags: str = ""
    generated: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    build_timeout: float = 900
    test_timeout: float = 3600

    @property
    def compiled(self) -> tuple[str, ...]:
        """The compiled modules whose import the tests must show."""
        return self.modules or self.extensions


RECIPES = (
    Recipe(
        name="crc32c",
        requirement="crc32c==2.9.post0",
        sha256="6a089e0340de8438e836a09e613c6b541675d0f3aa92b3fe34295aaba62f014f",
        language="C",
        exercises="multi-phase init, module state, buffers, GIL release",
        translate=("src/crc32c/ext",),
        extensions=("crc32c._crc32c",),
        import_root="src",
        tests=("test",),
        stock_reference=(48, 0, 1),
    ),
    Recipe(
        name="lru-dict",
        requirement="lru-dict==1.4.1",
        sha256="cc518ff2d38cc7a8ab56f9a6ae557f91e2e1524b57ed8e598e97f45a2bd708fc",
        language="C",
        exercises="static types, mapping protocol",
        translate=("src/lru/_lru.c",),
        extensions=("lru._lru",),
        import_root="src",
        tests=("test",),
        stock_reference=(26, 0, 0),
    ),
    Recipe(
        name="xxhash",
        requirement="xxhash==4.1.0",
        sha256="c9b288e4c1f5dae54417bc8a05e6f6daf505783d916b4783f4dd2f2e7d5db486",
        language="C",
        exercises="heap types, FASTCALL, buffers",
        translate=("src/_xxhash.c",),
        extensions=("_xxhash",),
        modules=("xxhash._xxhash",),  # setup(ext_package="xxhash")
        # The benchmarks too (182 of the 305 tests): pytest-benchmark's
        # --benchmark-disable runs each once, as a plain test.  Not the .pyi
        # check, which runs the pyright tool (Node.js, not on PyPI).
        requirements=(SETUPTOOLS, "pytest-benchmark==5.3.1", "py-cpuinfo==9.0.0"),
        tests=("tests", "--ignore=tests/test_stubs_pyright.py"),
        pytest_args=("--benchmark-disable",),
        cflags="-I{upstream}/deps/xxhash",
        stock_reference=(305, 0, 5),
    ),
    Recipe(
        name="zope.interface",
        requirement="zope.interface==8.7",
        sha256="0b47b62e8d0d99b24bcdd32f4f2120425e5019c3bee2ad69a0e1d75737487a96",
        language="C",
        exercises="module state, GC, descriptors",
        translate=("src/zope/interface/_zope_interface_coptimizations.c",),
        extensions=("zope.interface._zope_interface_coptimizations",),
        import_root="src",
        env={"PURE_PYTHON": "0"},
        requirements=(SETUPTOOLS, "zope.event==6.2", "zope.testing==6.2"),
        tests=("src/zope/interface",),
        # src/zope is a namespace package: without this pytest would import
        # the tests as a top-level package `interface`, a second copy.
        pytest_args=("-o", "consider_namespace_packages=true"),
        in_quick_run=False,  # make test's budget: 1,374 tests, run twice
        stock_reference=(1374, 0, 8),
    ),
    Recipe(
        name="lz4",
        requirement="lz4==4.4.5",
        sha256="5f0b9e53c1e82e88c10d7c180069363980136b9d7a8306c4dca4f760d60c39f0",
        language="C",
        exercises="capsules, buffers",
        # The experimental lz4.stream is neither built nor tested by default.
        translate=("lz4/_version.c", "lz4/block", "lz4/frame"),
        extensions=("lz4._version", "lz4.block._block", "lz4.frame._frame"),
        # The bundled liblz4, not whatever the machine has.
        env={"PYLZ4_USE_SYSTEM_LZ4": "False"},
        requirements=(SETUPTOOLS, "setuptools-scm==8.1.0", "pkgconfig==1.5.5"),
        tests=("tests/block", "tests/frame"),
        # Every test module but the five large parametrised ones
        # (test_block_0, test_frame_1, _2, _4 and _6: 19,753 of the 19,804
        # tests): 51 tests, every compiled module imported.
        quick_tests=tuple(f"tests/block/test_block_{n}.py" for n in (1, 2, 3))
        + tuple(f"tests/frame/test_frame_{n}.py" for n in (0, 3, 5, 7, 8, 9)),
        cflags="-I{upstream}/lz4libs",
        in_quick_run=False,  # make test's budget: its bundled liblz4 built twice
        stock_reference=(19804, 0, 0),
    ),
    Recipe(
        name="tinyarray",
        requirement="tinyarray==1.2.5",
        sha256="5d47b3d475a30478ee72d6afe238c3d3683b3a3f9d425bb2f6384270b2c8799b",
        language="C++",
        exercises="templates, buffer export, number/sequence protocols",
        translate=("src",),
        extensions=("tinyarray",),
        generated=("src/version.hh",),  # setup.py's build_ext writes it
        tests=("test_tinyarray.py",),
        in_quick_run=False,  # make test's budget: a C++ build of 77 s
        stock_reference=(18, 0, 0),
    ),
    Recipe(
        name="python-rapidjson",
        requirement="python-rapidjson==1.25",
        sha256="97c1de449552ec28ac5ae89350c2b53e4c5d21a9b4308d7a1630b1099e5db9fc",
        language="C++",
        exercises="static types, multi-phase init, keywords",
        translate=("rapidjson.cpp",),
        extensions=("rapidjson",),
        requirements=(SETUPTOOLS, "pytz==2026.6"),
        tests=("tests",),
        cflags="-I{upstream}/rapidjson/include -DPYTHON_RAPIDJSON_VERSION=1.25",
        # 937/0/17 in pytest's summary; run.py counts its 2 xfailed as skipped.
        in_quick_run=False,  # make test's budget: C++ builds of 160-240 s
        stock_reference=(937, 0, 19),
    ),
    Recipe(
        name="immutables",
        requirement="immutables==0.21",
        sha256="b55ffaf0449790242feb4c56ab799ea7af92801a0a43f9e2f4f8af2ab24dfc4a",
        language="C",
        exercises="11 types, GC, iterators, _PyUnicodeWriter",
        translate=("immutables/_map.c", "immutables/_map.h", "immutables/pythoncapi_compat.h"),
        extensions=("immutables._map",),
        # tests/conftest.py imports mypy (its typing tests); mypy's own
        # requirements are listed because they are installed --no-deps.
        requirements=(SETUPTOOLS, "mypy==2.4.1", "ast_serialize==0.13.1", "librt==0.17.0",
                      "mypy_extensions==1.2.0", "pathspec==1.1.1"),
        tests=("tests",),
        in_quick_run=False,  # make test's budget: mypy installed for its tests
        stock_reference=(158, 1, 0),
    ),
    Recipe(
        name="simplejson",
        requirement="simplejson==4.3.0",
        sha256="ffe34ab51a0d37e6d1c661a5672df00d2d5e18804e38eac07abffb83fa5ec3d7",
        language="C",
        exercises="heap types, GC, module state",
        translate=("simplejson/_speedups.c", "simplejson/_speedups_scan.h"),
        extensions=("simplejson._speedups",),
        env={"REQUIRE_SPEEDUPS": "1"},
        tests=("simplejson/tests",),
        stock_reference=(250, 0, 32),
    ),
    Recipe(
        name="wrapt",
        requirement="wrapt==2.5.2",
        sha256="551cb49e88b3722faad780303833bc4fa70685fb1773270fb98b40d39d9fddbf",
        language="C",
        exercises="5 heap types, ~36 number slots, descriptors",
        translate=("src/wrapt/_wrappers.c",),
        extensions=("wrapt._wrappers",),
        import_root="src",
        env={"WRAPT_INSTALL_EXTENSIONS": "true"},
        tests=("tests",),
        stock_reference=(1371, 0, 47),
    ),
    Recipe(
        name="markupsafe",
        requirement="markupsafe==3.0.4",
        sha256="2e9ad7dd851bf45fab9f75cbff4cb493fee9979e8d8c7c9c3ee119022518edd6",
        language="C",
        exercises="unicode kinds and data, method calls, single-phase init",
        translate=("src/markupsafe/_speedups.c",),
        extensions=("markupsafe._speedups",),
        import_root="src",
        # Every test runs twice (tests/conftest.py): on the pure-Python
        # _native module and on _speedups.
        tests=("tests",),
        in_quick_run=False,  # make test's budget: every test run twice
        stock_reference=(79, 0, 1),
    ),
    Recipe(
        name="mmh3",
        requirement="mmh3==5.3.1",
        sha256="bd86d0c86b52332319d981d03781ff77811a29db544a69902dc06b5506bb3e19",
        language="C",
        exercises="heap types, FASTCALL and keywords, buffers, GIL release",
        # No setup.py: the extension is declared in pyproject.toml.
        translate=("src/mmh3",),
        extensions=("mmh3",),
        import_root="src",
        # tests/test_mmh3.py and test_mmh3_hasher.py import tests/helper.py,
        # which the sdist does not ship: the other three modules run.
        tests=("tests/test_doctrings.py", "tests/test_free_threading.py",
               "tests/test_invalid_inputs.py"),
        in_quick_run=False,  # 115 s, 54 of them the Cystck build
        stock_reference=(47, 0, 0),
    ),
    Recipe(
        name="ciso8601",
        requirement="ciso8601==2.4.1",
        sha256="76452eacea17b948645c66ca92b7d282e909dc04e9b158340adced09b3f77ee3",
        language="C",
        exercises="datetime C API, a tzinfo subclass, module-level caches",
        translate=("module.c", "timezone.c", "timezone.h", "isocalendar.c", "isocalendar.h"),
        extensions=("ciso8601",),
        # tests/tests.py imports tests/generate_test_timestamps.py, which the
        # sdist does not ship: the timezone tests run.
        tests=("tests/test_timezone.py",),
        cflags="-DCISO8601_VERSION=2.4.1 -DCISO8601_CACHING_ENABLED=1",
        in_quick_run=False,  # 80 s, 44 of them the Cystck build (docs/gaps.md T17)
        stock_reference=(8, 0, 0),
    ),
    Recipe(
        name="pyahocorasick",
        requirement="pyahocorasick==2.3.1",
        sha256="9d0f6bb522237ed7f111ed59c9e8baea7d1e75813587b6773babd43bda35db9f",
        language="C",
        exercises="static types, iterators, pickling, buffers",
        # One translation unit: src/pyahocorasick.c includes every other .c.
        translate=("src",),
        extensions=("ahocorasick",),
        tests=("tests",),
        in_quick_run=False,  # its translation alone takes 2-4 minutes (docs/gaps.md T18)
        stock_reference=(150, 0, 7),
    ),
    Recipe(
        name="setproctitle",
        requirement="setproctitle==1.3.8",
        sha256="cafe209d064a6efb88cb45a03e97981ff8832802b2b5d009dde0197a3b7b41c8",
        language="C",
        exercises="module functions, argv and environ of the process",
        translate=("src",),
        extensions=("setproctitle._setproctitle",),
        import_root="pkg",
        # The tests also run the module in child processes and in an
        # embedded interpreter (tests/pyrun.c), with PYTHONPATH inherited.
        tests=("tests",),
        in_quick_run=False,  # make test's budget: tests in child processes
        stock_reference=(25, 0, 3),
    ),
    Recipe(
        name="bitarray",
        requirement="bitarray==3.12.3",
        sha256="919e35a951c0a551631b94bf568f3f5e38d004e0c60866cb2ca51bd8c4778fec",
        language="C",
        exercises="buffer export and import, sequence/number/mapping slots, a type shared by two modules",
        translate=("bitarray/_bitarray.c", "bitarray/_util.c", "bitarray/bitarray.h",
                   "bitarray/pythoncapi_compat.h"),
        extensions=("bitarray._bitarray", "bitarray._util"),
        # test_free_threading.py asserts a free-threaded build at import.
        tests=("bitarray/test_bitarray.py", "bitarray/test_util.py", "bitarray/test_bitfields.py"),
        in_quick_run=False,  # its Cystck build fails (docs/gaps.md T19)
        stock_reference=(713, 0, 10),
    ),
    Recipe(
        name="multidict",
        requirement="multidict==6.7.1",
        sha256="ec6652a1bee61c53a3e5776b6049172c53b6aaba34f18c9ad04f82712bac623d",
        language="C",
        exercises="7 heap types, mapping and sequence protocols, iterators, module state",
        # _multidict.c includes every header of _multilib/.
        translate=("multidict/_multidict.c", "multidict/_multilib"),
        extensions=("multidict._multidict",),
        # The benchmarks run each once without --codspeed; the leak tests
        # measure the process's memory with psutil and objgraph (--doctest-modules
        # imports their scripts too).
        requirements=(SETUPTOOLS, "pytest-codspeed==4.2.0", "cffi==2.1.1", "pycparser==3.12",
                      "rich==15.0.0", "markdown-it-py==4.3.0", "mdurl==0.1.2",
                      "pygments==2.21.0", "psutil==7.2.1", "objgraph==3.6.2"),
        # Not tests/test_circular_imports.py: it imports multidict in
        # `python -I`, which ignores PYTHONPATH (the tree under test).
        tests=("tests", "--ignore=tests/test_circular_imports.py"),
        # pytest.ini's addopts load pytest-cov and measure coverage; the
        # options that change what runs stay.
        pytest_args=("-o", "addopts=--doctest-modules --strict-markers"),
        # Kept stock as a whole (its str subclass; docs/gaps.md T20), the
        # init bridged; 4 min on a loaded machine.
        in_quick_run=False,
        stock_reference=(1634, 0, 0),
    ),
    Recipe(
        name="pyrsistent",
        requirement="pyrsistent==0.20.0",
        sha256="4c48f78f62ab596c679086084d0dd13254ae4f3d6c72a83ffdf5ebdef8f265a4",
        language="C",
        exercises="static types, sequence and mapping slots, GC, weak references, iterators, pickling",
        translate=("pvectorcmodule.c",),
        extensions=("pvectorc",),
        # The package falls back to pure Python when pvectorc does not
        # import; the probe shows it was imported.  hypothesis
        # (hypothesis_vector_test.py) is the test environment's own.
        tests=("tests",),
        # Kept stock as a whole (objects in its trie nodes' void * slots,
        # docs/gaps.md T21), the init bridged; 9 min on a loaded machine.
        in_quick_run=False,
        stock_reference=(637, 0, 1),
    ),
    Recipe(
        name="crcmod",
        requirement="crcmod==1.7",
        sha256="dc7051a0db5f2bd48665a990d3ec1cc305a466a77358ca4492826f41f283601e",
        language="C",
        exercises="module functions, buffers, PyArg_ParseTuple formats",
        # setup.py picks python3/ on Python 3 (package_dir).
        translate=("python3/src/_crcfunext.c",),
        extensions=("crcmod._crcfunext",),
        import_root="python3",
        # test/test_crcmod.py calls unittest.main() on crcmod.test at import.
        tests=("python3/crcmod/test.py",),
        in_quick_run=False,  # 97 s, 40 of them the Cystck build
        stock_reference=(12, 0, 0),
    ),
    Recipe(
        name="ed25519",
        requirement="ed25519==1.5",
        sha256="02053ee019ceef0df97294be2d4d5a8fc120fc86e81e08bec1245fc0f9403358",
        language="C",
        exercises="module functions, PyArg_ParseTuple s#/y#, bytes results, module exceptions",
        # The glue only: the bundled SUPERCOP reference code uses no Python API.
        translate=("src/ed25519-glue/ed25519module.c",),
        extensions=("ed25519._ed25519",),
        import_root="src",  # package_dir={"ed25519": "src/ed25519"}
        cflags="-I{upstream}/src/ed25519-supercop-ref",
        # test_ed25519_kat.py reads kat-ed25519.txt from the sdist's root.
        tests=("src/ed25519/test_ed25519.py", "test_ed25519_kat.py"),
        in_quick_run=False,  # 369 s at load 13 (three sessions of a 1,024-signature known-answer test)
        stock_reference=(11, 0, 0),
    ),
    Recipe(
        name="zstd",
        requirement="zstd==1.5.7.2",
        sha256="6d8684c69009be49e1b18ec251a5eb0d7e24f93624990a8a124a1da66a92fc8a",
        language="C",
        exercises="module functions, buffers, bytes resized in place, GIL release, pythoncapi_compat.h",
        # The bundled libzstd (zstd/lib) uses no Python API; src/ holds the
        # binding, its helpers and pythoncapi_compat.h.
        translate=("src",),
        extensions=("zstd",),
        import_root="src",  # package_dir={"": "src"}: build_ext --inplace puts zstd*.so there
        cflags="-I{upstream}/zstd/lib -DZSTD_MULTITHREAD=1 -DZSTD_DISABLE_ASM=1",
        # tests/test_speed.py runs each of its tests for 30 s (a benchmark).
        tests=("tests", "--ignore=tests/test_speed.py"),
        in_quick_run=False,  # 18 min at load 13: two builds of the bundled libzstd at -O3
        stock_reference=(32, 0, 0),
    ),
    Recipe(
        name="bitstruct",
        requirement="bitstruct==8.24.0",
        sha256="c72d8bd3b1762a5bcc9fde16bfa4d52800a4bc8d79f81bc7ee0e0bca5b5e901e",
        language="C",
        exercises="static types, PyArg_ParseTupleAndKeywords, integers of any width, bytes and bytearray",
        # c.c is the binding; bitstream.c uses no Python API.
        translate=("src/bitstruct/c.c", "src/bitstruct/bitstream.c", "src/bitstruct/bitstream.h"),
        extensions=("bitstruct.c",),
        import_root="src",
        tests=("tests",),
        # 50/1/0 as Cystck: a kwlist shorter than its format (docs/gaps.md T25)
        in_quick_run=False,
        stock_reference=(51, 0, 0),
    ),
    Recipe(
        name="inflate64",
        requirement="inflate64==1.0.4",
        sha256="b398c686960c029777afc0ed281a86f66adb956cfc3fbf6667cc6453f7b407ce",
        language="C",
        exercises="heap types, module state, GIL release, thread locks, an output buffer of bytes blocks",
        # The binding and its output-buffer header; the bundled deflate64
        # code (src/lib) uses no Python API.
        translate=("src/ext",),
        extensions=("inflate64._inflate64",),
        import_root="src",
        requirements=(SETUPTOOLS, "setuptools-scm==8.1.0"),
        cflags="-I{upstream}/src/lib",
        tests=("tests",),
        in_quick_run=False,  # 5-10 min on a loaded machine (the bundled deflate64 built twice)
        stock_reference=(42, 0, 0),
    ),
    Recipe(
        name="brotli",
        requirement="Brotli==1.2.1",
        sha256="02b2f7b5a83485efe448a44ddf7983def05c3bb1dcf917d4f7154070260e13de",
        language="C",
        exercises="heap and static types, module state, buffers, GIL release, keywords",
        # The binding only: the bundled Brotli library (c/) uses no Python API.
        translate=("python/_brotli.c",),
        extensions=("_brotli",),
        import_root="python",  # package_dir={"": "python"}
        cflags="-I{upstream}/c/include",
        tests=("python/tests",),
        in_quick_run=False,  # the bundled Brotli library built twice
        stock_reference=(595, 0, 0),
    ),
    Recipe(
        name="cbor2",
        requirement="cbor2==5.9.0",
        sha256="85c7a46279ac8f226e1059275221e6b3d0e370d2bb6bd0500f9780781615bcea",
        language="C",
        exercises="static types with GC, module state, datetime/decimal/uuid via imports, recursion guards, buffers",
        # source/ holds the whole extension (module, encoder, decoder, tags,
        # half floats).
        translate=("source",),
        extensions=("_cbor2",),
        # The C extension is optional unless asked for; the tests run each
        # case against _cbor2 and against the pure-Python modules.
        env={"CBOR2_BUILD_C_EXTENSION": "1"},
        requirements=(SETUPTOOLS, "setuptools-scm==8.1.0"),
        tests=("tests",),
        in_quick_run=False,  # its Cystck build fails (docs/gaps.md T27)
        stock_reference=(762, 0, 0),
    ),
    Recipe(
        name="bsdiff4",
        requirement="bsdiff4==1.3.2",
        sha256="ed262caa697247e9af00af1076b5fce0b578a17b19d9bdbad30c110dd7660a8d",
        language="C",
        exercises="module functions, buffers, bytes built and resized, tuples of integers, GIL release",
        translate=("bsdiff4/core.c",),
        extensions=("bsdiff4.core",),
        # The tests are a module of the package.
        tests=("bsdiff4/test_all.py",),
        in_quick_run=False,
        stock_reference=(30, 0, 0),
    ),
    Recipe(
        name="rjsmin",
        requirement="rjsmin==1.3.0",
        sha256="7c2ef57d55e2d76db0c0d0f7399c6c5efde995c677b190ba30fb94019f94a07e",
        language="C",
        exercises="module functions with keywords, str and bytes input, buffers, results built in place",
        # cext.h is the author's compatibility header around Python.h.
        translate=("rjsmin.c", "cext.h"),
        extensions=("_rjsmin",),
        # setup.py falls back to the pure-Python module when the C build
        # fails, unless told not to.
        env={"SETUP_CEXT_REQUIRED": "1"},
        # setup.py passes the module's name and version on the command line.
        cflags="-DEXT_MODULE=_rjsmin -DEXT_VERSION=1.3.0 -UEXT_PACKAGE",
        tests=("tests",),
        in_quick_run=False,  # (its Cystck build failed at first contact; passes since docs/gaps.md T27)
        stock_reference=(30, 0, 0),
    ),
    Recipe(
        name="hiredis",
        requirement="hiredis==3.5.0",
        sha256="c227592cc56b7df247abe4755c26723965be68972be2149fa441ac33d82131ba",
        language="C",
        exercises="a static type fed by a C parser's callbacks, objects in the library's void * slots, module state, pack of command lists",
        # src/ is the binding; the bundled hiredis library (vendor/hiredis)
        # uses no Python API.  Its reader and pack tests need no server.
        translate=("src",),
        extensions=("hiredis.hiredis",),
        cflags="-I{upstream}/vendor",
        tests=("tests",),
        in_quick_run=False,
        stock_reference=(65, 0, 0),
    ),
    Recipe(
        name="pyppmd",
        requirement="pyppmd==1.1.0",
        sha256="1d38ce2e4b7eb84b53bc8a52380b94f66ba6c39328b8800b30c2b5bf31693973",
        language="C",
        exercises="four static types wrapping PPMd coders, a decoder thread with its own lock and "
                  "condition, output gathered in a list of bytes blocks, the GIL released, buffers",
        # The binding and its output-buffer header; the bundled PPMd library
        # (src/lib/ppmd) and the thread decoder use no Python API.
        translate=("src/ext/_ppmdmodule.c", "src/lib/buffer"),
        extensions=("pyppmd.c._ppmd",),
        import_root="src",  # package_dir={"": "src"}
        cflags="-I{upstream}/src/lib/ppmd -I{output}/src/lib/buffer",
        # conftest.py imports cpuinfo and defines pytest-benchmark hooks
        requirements=(SETUPTOOLS, "setuptools-scm==8.1.0", "py-cpuinfo==9.0.0", "pytest-benchmark==4.0.0"),
        # the benchmarks (slow) and the fuzzer (atheris) are left out
        tests=("tests/test_ppmd7.py", "tests/test_ppmd8.py", "tests/test_highlevel_api.py"),
        in_quick_run=False,
        stock_reference=(22, 0, 0),
    ),
    Recipe(
        name="posix_ipc",
        requirement="posix-ipc==1.3.2",
        sha256="6923232111329954a8349f7d99f212b6e96b5206e77fbd39aaf1b3cb4a5e9260",
        language="C",
        exercises="three static types over POSIX semaphores, shared memory and message queues, "
                  "the GIL released around blocking calls, module exceptions, a notification callback",
        translate=("src",),
        extensions=("posix_ipc",),
        generated=("src/system_info.h",),  # setup.py's discover_system_info writes it
        tests=("tests",),
        # (a test reads sys.stdin.fileno() at import, which pytest's capture refuses)
        pytest_args=("-s",),
        in_quick_run=False,
        stock_reference=(93, 0, 0),
    ),
    Recipe(
        name="zfec",
        requirement="zfec==1.6.0.0",
        sha256="c5a1861c253b512698c2e733ae4d83f5e2d6ea6c881b7dbe11334b694e755a00",
        language="C",
        exercises="two static types (erasure encoder and decoder), buffers of the input "
                  "blocks, lists of bytes built and returned, the GIL released",
        # The binding; fec.c (the codec) uses no Python API.
        translate=("zfec/_fecmodule.c", "zfec/fec.c", "zfec/fec.h"),
        extensions=("zfec._fec",),
        cflags="-std=c99 -I{upstream}/zfec",
        # pyutil (its fileutil) is imported by the tests; hypothesis is the
        # test environment's own.
        requirements=(SETUPTOOLS, "pyutil==3.4.1"),
        tests=("zfec/test",),
        in_quick_run=False,
        stock_reference=(28, 0, 0),
    ),
    Recipe(
        name="cbitstruct",
        requirement="cbitstruct==1.2.0",
        sha256="eb7b45813c708ad9292dca23193e3c799b33eee773460f87c02fa8d660586dbf",
        language="C",
        exercises="two static types with __init__ and copying, Argument Clinic parsers "
                  "(their generated headers), buffers, built with -Wall -Werror",
        translate=("cbitstruct/_cbitstruct.c", "cbitstruct/clinic"),
        extensions=("cbitstruct._cbitstruct",),
        cflags="-std=c11",
        # the tests compare with bitstruct (its Python module)
        requirements=(SETUPTOOLS, "bitstruct==8.24.0"),
        # test_perf.py only prints timings (no assertion): left out
        tests=("cbitstruct/tests", "--ignore=cbitstruct/tests/test_perf.py"),
        in_quick_run=False,
        stock_reference=(66, 0, 0),
    ),
    Recipe(
        name="pyxattr",
        requirement="pyxattr==0.8.1",
        sha256="48c578ecf8ea0bd4351b1752470e301a90a3761c7c21f00f953dcf6d6fa6ee5a",
        language="C",
        exercises="module functions with keywords, file descriptors and file objects or paths "
                  "(PyUnicode_FSConverter), bytes and lists built, the GIL released, OSError from errno",
        translate=("xattr.c",),
        extensions=("xattr",),
        # setup.py passes the version, author and e-mail as string macros (define_macros)
        cflags="""'-D_XATTR_VERSION="0.8.1"' '-D_XATTR_AUTHOR="a"' '-D_XATTR_EMAIL="e"'""",
        tests=("tests",),
        in_quick_run=False,  # make test's budget: 287 tests of 22-113 s at load
        stock_reference=(287, 0, 0),
    ),
    Recipe(
        name="jellyfish",
        requirement="jellyfish==0.9.0",
        sha256="40c9a2ffd8bd3016f7611d424120442f627f56d518a106847dc93f0ead6ad79a",
        language="C",
        exercises="module functions over str (UCS4 buffers, PyUnicode_AsUCS4Copy), integers and floats "
                  "returned, keywords",
        # cjellyfish/ holds the binding and the algorithms (plain C on
        # Py_UCS4 arrays).
        translate=("cjellyfish",),
        extensions=("jellyfish.cjellyfish",),
        # The tests run each case against the pure-Python module and against
        # cjellyfish (imported directly, so a failed build fails them).
        tests=("jellyfish/test.py",),
        in_quick_run=False,  # make test's budget: every case run twice (Python and C)
        stock_reference=(331, 0, 0),
    ),
    Recipe(
        name="zope.hookable",
        requirement="zope.hookable==8.4",
        sha256="ca0ffaf3d3bbca83e90378395ab31bdf7c66bdf3ded4d788cc1c6451146a69ec",
        language="C",
        exercises="one static type (a callable wrapper) with GC, members, getset descriptors, "
                  "__init__ keywords, tp_call forwarding, a subclassable base",
        translate=("src/zope/hookable/_zope_hookable.c",),
        extensions=("zope.hookable._zope_hookable",),
        import_root="src",
        env={"PURE_PYTHON": "0"},
        tests=("src/zope/hookable",),
        pytest_args=("-o", "consider_namespace_packages=true"),
        in_quick_run=False,  # added by T41 (generality), outside make test's budget
        stock_reference=(42, 0, 0),
    ),
    Recipe(
        name="lazy-object-proxy",
        requirement="lazy-object-proxy==1.13.0",
        sha256="ce34046cb021d69c72d05ddb83821ecfd4d2d0a5d43a93c5cd01c9e34779cf14",
        language="C",
        exercises="one static type forwarding every number, sequence, mapping, rich comparison "
                  "and iterator slot to a lazily built object, getset and methods, GC, weakrefs",
        translate=("src/lazy_object_proxy/cext.c",),
        extensions=("lazy_object_proxy.cext",),
        import_root="src",
        # the tests run each case on the pure-Python proxies and on cext;
        # test_perf.py needs pytest-benchmark (timings only): left out
        tests=("tests", "--ignore=tests/test_perf.py"),
        in_quick_run=False,  # added by T41 (generality), outside make test's budget
        stock_reference=(1594, 46, 46),
    ),
    Recipe(
        name="zope.proxy",
        requirement="zope.proxy==7.3",
        sha256="a2c00ff84d416b5008bbcdd7337eb800ade8bc083312e8b5e0ecd7d0c0d11cf6",
        language="C",
        exercises="one static proxy type forwarding number, sequence, mapping, comparison and "
                  "iterator slots, a C API capsule for other extensions, module functions over proxies",
        translate=("src/zope/proxy/_zope_proxy_proxy.c", "src/zope/proxy/proxy.h"),
        extensions=("zope.proxy._zope_proxy_proxy",),
        import_root="src",
        env={"PURE_PYTHON": "0"},
        requirements=(SETUPTOOLS, "zope.interface==8.7"),
        tests=("src/zope/proxy",),
        pytest_args=("-o", "consider_namespace_packages=true"),
        in_quick_run=False,  # added by T41 (generality), outside make test's budget
        stock_reference=(206, 0, 4),
    ),
    Recipe(
        name="zope.i18nmessageid",
        requirement="zope.i18nmessageid==8.4",
        sha256="f6b36c3753b71bbe9228ebe44a2657726e88d2d5ee4396350dfd8c9fe6cfdec1",
        language="C",
        exercises="a heap type subclassing str (PyType_FromModuleAndSpec with a base), members, "
                  "GC, keyword __new__, module state",
        translate=("src/zope/i18nmessageid/_zope_i18nmessageid_message.c",),
        extensions=("zope.i18nmessageid._zope_i18nmessageid_message",),
        import_root="src",
        tests=("src/zope/i18nmessageid/tests.py",),
        pytest_args=("-o", "consider_namespace_packages=true"),
        in_quick_run=False,  # added by T44 (generality), outside make test's budget
        stock_reference=(47, 0, 0),
    ),
    Recipe(
        name="udatetime",
        requirement="udatetime==0.0.17",
        sha256="b10bc5570699a438a72e2b5a64e76bd8c28ee3befd16f209387a5507fa0b8301",
        language="C",
        exercises="the datetime C API (capsule import, datetime and timedelta constructors), "
                  "a static tzinfo subclass, module functions",
        translate=("src/rfc3339.c",),
        extensions=("udatetime.rfc3339",),
        # setup.py's define_macros: the CPython part is under #ifdef _PYTHON3
        cflags="-D_PYTHON3=1",
        tests=("test",),
        in_quick_run=False,  # added by T44 (generality), outside make test's budget
        stock_reference=(11, 0, 0),
    ),
    Recipe(
        name="sysv_ipc",
        requirement="sysv-ipc==1.2.0",
        sha256="ef96ab33bb62e4d14142f0be0524dcc0c3c70c96442df2fc773c67b7c7514199",
        language="C",
        exercises="three static types over System V semaphores, shared memory and message "
                  "queues, the buffer protocol, the GIL released around blocking calls, "
                  "module exceptions and constants, five files sharing one header",
        translate=("src",),
        extensions=("sysv_ipc",),
        generated=("src/system_info.h",),  # setup.py's discover_system_info writes it
        tests=("tests",),
        # added by T47 (generality): 59 s on a quiet machine, 200 s under load,
        # and its tests use the machine's System V IPC
        in_quick_run=False,
        stock_reference=(136, 0, 1),
    ),
    Recipe(
        name="rcssmin",
        requirement="rcssmin==1.3.0",
        sha256="ff15a3890eb350f1aa9ec34998f914c4e2fb13f949496f7c25e807578281adcf",
        language="C",
        exercises="module functions with keywords, str and bytes input, results built in place",
        # cext.h is the author's compatibility header around Python.h.
        translate=("rcssmin.c", "cext.h"),
        extensions=("_rcssmin",),
        # setup.py falls back to the pure-Python module when the C build
        # fails, unless told not to.
        env={"SETUP_CEXT_REQUIRED": "1"},
        # setup.py passes the module's name and version on the command line.
        cflags="-DEXT_MODULE=_rcssmin -DEXT_VERSION=1.3.0 -UEXT_PACKAGE",
        tests=("tests",),
        in_quick_run=False,  # added by T47 (generality), outside make test's budget
        stock_reference=(6, 0, 0),
    ),
)

# The quick run (`make corpus QUICK=1`, and eval/corpus/test_porting_corpus.py,
# part of `make test`): every extension but those marked in_quick_run=False,
# each with its quick_tests where it has them (lz4: 51 of its 19,804 tests,
# when `--quick --only lz4` asks for it), else its whole suite.
QUICK = tuple(r.name for r in RECIPES if r.in_quick_run)


def by_name() -> dict[str, Recipe]:
    return {r.name: r for r in RECIPES}


def select(names: str | None, *, quick: bool = False) -> list[Recipe]:
    """The recipes named in `names` (comma-separated), else the quick run's
    or all of them.  KeyError names an unknown recipe."""
    table = by_name()
    wanted = ([n.strip() for n in names.split(",") if n.strip()] if names
              else QUICK if quick else [r.name for r in RECIPES])
    unknown = [n for n in wanted if n not in table]
    if unknown:
        raise KeyError("unknown recipe: " + ", ".join(unknown)
                       + " (known: " + ", ".join(table) + ")")
    return [table[n] for n in wanted]
