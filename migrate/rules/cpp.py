"""C++ idioms of extensions written over the stock API (with or without a
helper library): type objects kept as static class members,
functors (``struct Op { PyObject* operator()( ... ); }``) that dispatch on
the static types of their operands, and struct pointers passed where an
object is expected.  Only for C++ files."""
import regex

from .. import libraries, project as proj, source
from ..engine import Rule
from . import _common


def _object_cast_macro():
    """A helper library's macro casting to an object or type pointer."""
    return libraries.cast_macro_pattern("PyObject*", "PyTypeObject*")


class ClassTypeRefs(Rule):
    """A type object kept as a static class member is a ``Cystck_Ref`` (the
    class-type-statics rule), so every use of it as an object reads the
    reference: ``PyType_GenericNew( Term::TypeObject, 0, 0 )`` passes
    ``Cystck_deref(S, Term::TypeObject)`` (a helper library's cast macro
    around it, ``as_object( Variable::TypeObject )``, goes: the handle is
    the object), and an inline member such as ``TypeCheck`` reads its own
    class's ``TypeObject`` the same way.  Assignments (``TypeObject =
    Cystck_ref(...)``), tests of the reference itself (``!TypeObject``) and
    declarations stay."""
    name = "class-type-refs"
    precedence = 647
    library = "c++"
    patterns = (r"(?<![\w.>]|->|::)(?:(?P<c>\w+)\s*::\s*)?(?P<m>\w+)\b",)
    before = ("struct Box\n{\n    PyObject_HEAD\n    static PyTypeObject* TypeObject;\n"
              "    static bool TypeCheck( PyObject* obj )\n    {\n"
              "        return PyObject_TypeCheck( obj, TypeObject ) != 0;\n    }\n};\n"
              "PyTypeObject* Box::TypeObject = NULL;\n"
              "static PyObject* f( PyObject* m )\n{\n"
              "    if( !Box::TypeObject )\n        return 0;\n"
              "    return PyType_GenericNew( Box::TypeObject, 0, 0 );\n}\n")
    after = ("struct Box\n{\n    PyObject_HEAD\n    static PyTypeObject* TypeObject;\n"
             "    static bool TypeCheck( PyObject* obj )\n    {\n"
             "        return PyObject_TypeCheck( obj, Cystck_deref(S, TypeObject) ) != 0;\n    }\n};\n"
             "PyTypeObject* Box::TypeObject = NULL;\n"
             "static PyObject* f( PyObject* m )\n{\n"
             "    if( !Box::TypeObject )\n        return 0;\n"
             "    return PyType_GenericNew( Cystck_deref(S, Box::TypeObject), 0, 0 );\n}\n")

    def apply(self, unit):
        members = unit.project.class_type_objects
        if not members:
            return 0
        code, text = unit.masked, unit.text
        edits = source.Edits()
        done = set()
        cast_before = _object_cast_macro() + r"\s*\(\s*$"
        for f in unit.functions():
            if not f.is_definition or f.body[0] in done:
                continue
            done.add(f.body[0])
            b0, b1 = f.body
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                name, cls = m.group("m"), m.group("c")
                if name not in members or (cls is not None and cls not in members[name]):
                    continue
                before, after = code[max(b0, m.start() - 40):m.start()], code[m.end():m.end() + 3]
                if regex.match(r"\s*(?:[!=]?=|\.|->)", after):
                    continue      # assigned, compared or a member of it
                if regex.search(r"(?:[!&]|\bCystck_(?:de|un)?ref\s*\(\s*S\s*,)\s*$", before):
                    continue
                expr = text[m.start():m.end()]
                cast = regex.search(cast_before, before)
                close = regex.match(r"\s*\)", code[m.end():])
                if cast and close:
                    start = m.start() - (len(before) - cast.start())
                    edits.add(start, m.end() + close.end(), f"Cystck_deref(S, {expr})")
                else:
                    edits.add(m.start(), m.end(), f"Cystck_deref(S, {expr})")
        if edits:
            unit.apply(edits)
        return edits.applied


def _template_params(masked):
    """Names declared as template parameters anywhere in the file
    (``template<typename Op, typename T>``): types the translator cannot
    see through."""
    names = set()
    for m in regex.finditer(r"\btemplate\s*<(?P<a>[^<>]*)>", masked):
        names.update(regex.findall(r"\b(?:typename|class)\s+(\w+)", m.group("a")))
    return names


class TemplateCasts(Rule):
    """A cast of a handle to a pointer to a template parameter,
    ``reinterpret_cast<T*>( h )``, reaches the native struct of whatever
    type ``T`` is: ``reinterpret_cast<T*>( Cystck_AsStruct(S, h) )`` (the
    untyped accessor; the cast keeps selecting the overload).  Casts to a
    known struct are the casts rule's."""
    name = "template-casts"
    precedence = 505
    library = "c++"
    patterns = (r"\b(?P<k>reinterpret|static)_cast\s*<\s*(?P<t>\w+)\s*\*\s*>\s*\(\s*(?P<h>\w+)\s*\)",)
    before = ("template<typename Op, typename T>\nstruct Invoke\n{\n"
              "    PyObject* operator()( PyObject* value )\n    {\n"
              "        return Op()( reinterpret_cast<T*>( value ) );\n    }\n};\n")
    after = ("template<typename Op, typename T>\nstruct Invoke\n{\n"
             "    PyObject* operator()( PyObject* value )\n    {\n"
             "        return Op()( reinterpret_cast<T*>( Cystck_AsStruct(S, value) ) );\n    }\n};\n")

    def apply(self, unit):
        params = _template_params(unit.masked)
        if not params:
            return 0
        code, text = unit.masked, unit.text
        edits = source.Edits()
        for ctx in _common.function_contexts(unit):
            b0, b1 = ctx.body
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                if m.group("t") in params and m.group("h") in ctx.handles:
                    edits.add(m.start("h"), m.end("h"), f"Cystck_AsStruct(S, {m.group('h')})")
        if edits:
            unit.apply(edits)
        return edits.applied


class StructPointerObjects(Rule):
    """In a functor's ``operator()`` the operands stay pointers to native
    structs (``Variable* first``), so where such a pointer is used as an
    object it becomes one again: ``first`` passed to an API function
    (``PyTuple_Pack( 2, first, second )``) or under a helper library's cast
    macro (``as_object( first )``) becomes ``Cystck_FromStruct(S,
    first)``; a read of an object member ``first->terms`` becomes
    ``CystckField_Load(S, Cystck_FromStruct(S, first), first->terms)``
    (other members, ``first->constant``, stay).
    Passing the pointer to another functor keeps it: that selects the
    overload."""
    name = "struct-pointer-objects"
    precedence = 385
    library = "c++"
    patterns = (r"(?<![\w.>])(?P<p>\w+)\s*->\s*(?P<f>\w+)(?!\s*(?:\(|=[^=]))",
                r"(?<=[(,]\s*)(?P<p>\w+)(?=\s*[,)])")
    before = ("typedef struct { PyObject_HEAD PyObject *terms; double constant; } Expr;\n"
              "struct Add\n{\n    PyObject* operator()( Expr* first, Expr* second )\n    {\n"
              "        if( first->constant == 0.0 )\n            return Add()( second, first );\n"
              "        return PyTuple_Pack( 3, first->terms, first, second );\n    }\n};\n")
    after = ("typedef struct { PyObject_HEAD PyObject *terms; double constant; } Expr;\n"
             "struct Add\n{\n    PyObject* operator()( Expr* first, Expr* second )\n    {\n"
             "        if( first->constant == 0.0 )\n            return Add()( second, first );\n"
             "        return PyTuple_Pack( 3, CystckField_Load(S, Cystck_FromStruct(S, first), first->terms), "
             "Cystck_FromStruct(S, first), Cystck_FromStruct(S, second) );\n    }\n};\n")

    def apply(self, unit):
        p = unit.project
        if not p.types:
            return 0
        code, text = unit.masked, unit.text
        edits = source.Edits()
        cast = _object_cast_macro() + r"\s*\(\s*(?P<p>\w+)\s*\)"
        for ctx in _common.function_contexts(unit):
            if not _common.keeps_struct_params(ctx.func.name) or not ctx.data_ptrs:
                continue
            b0, b1 = ctx.body
            ptrs = ctx.data_ptrs
            for m in regex.finditer(cast, code, pos=b0, endpos=b1):
                if m.group("p") in ptrs:
                    edits.add(m.start(), m.end(), f"Cystck_FromStruct(S, {m.group('p')})")
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                ptr, fname = m.group("p"), m.group("f")
                info = p.types.get(ptrs.get(ptr))
                if info is None or fname not in info.object_fields:
                    continue
                if regex.search(r"&\s*$", code[max(b0, m.start() - 3):m.start()]):
                    continue
                edits.add(m.start(), m.end(),
                          f"CystckField_Load(S, Cystck_FromStruct(S, {ptr}), {text[m.start():m.end()]})")
            for m in regex.finditer(self.patterns[1], code, pos=b0, endpos=b1):
                if m.group("p") not in ptrs:
                    continue
                callee = self._callee(code, m.start(), b0)
                if callee and regex.fullmatch(r"_?Py[A-Z]\w*|Cystck\w*", callee):
                    edits.add(m.start(), m.end(), f"Cystck_FromStruct(S, {m.group('p')})")
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _callee(code, pos, start):
        """The name of the function whose argument list holds ``pos``."""
        depth = 0
        for i in range(pos - 1, start - 1, -1):
            c = code[i]
            if c == ")":
                depth += 1
            elif c == "(":
                if depth == 0:
                    m = regex.search(r"(\w+)\s*$", code[start:i])
                    return m.group(1) if m else None
                depth -= 1
            elif c in ";{}" and depth == 0:
                return None
        return None


def functor_classes(project):
    """Structs that define a call operator (in their body or out of line as
    ``Name::operator()``), from the stock sources of every file."""
    names = set()
    for text in project.files.values():
        masked = source.mask(text)
        for m in regex.finditer(r"\b(\w+)\s*::\s*operator\s*\(\s*\)\s*\(", masked):
            names.add(m.group(1))
        for m in regex.finditer(r"\b(?:struct|class)\s+(\w+)\s*(?::[^{;]*)?\{", masked):
            try:
                close = source.matching(masked, m.end() - 1)
            except Exception:
                continue
            body = masked[m.end():close]
            # its own operator(), not a nested struct's
            depth, flat = 0, []
            for c in body:
                if c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                elif depth == 0:
                    flat.append(c)
            if regex.search(r"\boperator\s*\(\s*\)\s*\(", "".join(flat)):
                names.add(m.group(1))
    return names


class FunctorCalls(Rule):
    """Functors whose ``operator()`` got the state are called with it:
    ``Op()( a, b )``, ``BinaryInvoke<Add, Term>()( a, b )`` (a functor
    class of the project, or a template parameter standing for one),
    ``operator()( b, a )`` inside a functor, and function templates called
    with explicit arguments, ``invoke<Normal>( a, b )``, that take the
    state."""
    name = "functor-calls"
    precedence = 565
    library = "c++"
    patterns = (r"(?<![\w:.>])(?P<f>\w+)\s*(?:<[^<>;(){}]*(?:<[^<>;(){}]*>[^<>;(){}]*)*>)?\s*\(\s*\)\s*(?P<o>\()(?!\s*S\s*[,)])",
                r"(?<![\w:.>])operator\s*\(\s*\)\s*(?P<o>\()(?!\s*S\s*[,)])",
                r"(?<![\w:.>])(?P<f>\w+)\s*<[^<>;(){}]*>\s*(?P<o>\()(?!\s*S\s*[,)])")
    before = ("struct Neg\n{\n    PyObject* operator()( PyObject* v ) { return PyNumber_Negative( v ); }\n"
              "    PyObject* twice( PyObject* v ) { return operator()( operator()( v ) ); }\n};\n"
              "template<typename Op>\nPyObject* apply( PyObject* v ) { return Op()( v ); }\n"
              "PyObject* f( PyObject* v ) { return apply<Neg>( Neg()( v ) ); }\n")
    after = ("struct Neg\n{\n    PyObject* operator()( PyObject* v ) { return PyNumber_Negative( v ); }\n"
             "    PyObject* twice( PyObject* v ) { return operator()( S, operator()( S, v ) ); }\n};\n"
             "template<typename Op>\nPyObject* apply( PyObject* v ) { return Op()( S, v ); }\n"
             "PyObject* f( PyObject* v ) { return apply<Neg>( S, Neg()( S, v ) ); }\n")

    def apply(self, unit):
        p = unit.project
        if not any(name == "operator()" and info.needs_state for (_, name), info in p.functions.items()):
            return 0
        functors = functor_classes(p) | _template_params(unit.masked)
        code = unit.masked
        edits = source.Edits()

        def insert(o):
            if regex.match(r"\(\s*\)", code[o:]):
                edits.add(o, o + regex.match(r"\(\s*\)", code[o:]).end(), "(S)")
            else:       # after the padding: ``( S, a, b )``
                pad = regex.match(r"\([ \t]*", code[o:]).end()
                edits.add(o + pad, o + pad, "S, ")
        done = set()
        for f in unit.functions():
            if not f.is_definition or f.body[0] in done:
                continue
            done.add(f.body[0])
            info = p.function(unit.path, f.name)
            if info is None or not info.needs_state:
                continue
            b0, b1 = f.body
            for m in regex.finditer(self.patterns[0], code, pos=b0, endpos=b1):
                if m.group("f") in functors:
                    insert(m.start("o"))
            for m in regex.finditer(self.patterns[1], code, pos=b0, endpos=b1):
                insert(m.start("o"))
            for m in regex.finditer(self.patterns[2], code, pos=b0, endpos=b1):
                if m.group("f") not in functors and p.needs_state(unit.path, m.group("f")):
                    insert(m.start("o"))
        if edits:
            unit.apply(edits)
        return edits.applied


class ClassStateMember(Rule):
    """A C++ class whose member functions use the API and which has a
    constructor (a SAX handler or a stream that a library's templates call
    as ``handler.EndObject(n)``, ``is.Peek()``: fixed signatures) holds the
    state as a member, ``Cystck_State *S;``, set by its constructors, which
    take it first (``: S(S)``); its methods keep their signatures and read
    ``S`` from the object, and objects of it are made with it: ``Handler
    h(S, hook);`` (``Handler(S, hook)``, ``new Handler(S, hook)``: the
    state-calls rule).  Its handles belong to the frame of the call that
    made the object, which the object must not outlive (a local of that
    call).  A class with no constructor, a functor (operator() takes S)
    and static member functions keep the state as a parameter
    (project.state_classes)."""
    name = "class-state-member"
    precedence = 566
    library = "c++"
    patterns = (r"(?<![\w.>:~&*])(?P<c>\w+)\s+(?P<v>\w+)\s*(?:(?P<o>[({])(?!\s*S\s*[,)}])|(?P<e>;))",)
    before = ("class Handler {\npublic:\n    Handler(PyObject* hook) : hook(hook) {}\n"
              "    bool Null() { return PyObject_CallNoArgs(hook) != NULL; }\nprivate:\n"
              "    PyObject* hook;\n};\n"
              "static int run(PyObject* hook)\n{\n    Handler h(hook);\n    return h.Null();\n}\n")
    after = ("class Handler {\n    Cystck_State *S;\npublic:\n    Handler(PyObject* hook) : S(S), hook(hook) {}\n"
             "    bool Null() { return PyObject_CallNoArgs(hook) != NULL; }\nprivate:\n"
             "    PyObject* hook;\n};\n"
             "static int run(PyObject* hook)\n{\n    Handler h(S, hook);\n    return h.Null();\n}\n")

    def apply(self, unit):
        classes = unit.project.state_classes
        if not unit.project.classes:
            return 0
        code = unit.structure
        edits = source.Edits()
        for name, open_at, close in proj.class_bodies(code):
            if name in classes and not regex.search(r"\bCystck_State\s*\*\s*S\s*;", code[open_at:close]):
                indent = regex.match(r"\{[ \t]*\n(?:[ \t]*\n)*(?P<i>[ \t]*)", code[open_at:close])
                pad = indent.group("i") if indent and indent.group("i") else "    "
                edits.add(open_at + 1, open_at + 1, f"\n{pad}Cystck_State *S;" if indent else f" Cystck_State *S;")
        fields = unit.project.handle_fields
        for f in unit.functions():
            if f.name in unit.project.classes and f.is_definition and not proj.is_destructor(code, f):
                if f.name in classes:
                    self._initialise(code, f, edits)
                # ``: root(NULL)`` of a member that became a handle
                for m in regex.finditer(r"(?<![\w.])(?P<m>\w+)\s*\(\s*(?P<n>NULL|0|nullptr)\s*\)",
                                        code, pos=f.params[1], endpos=f.body[0]):
                    if m.group("m") in fields:
                        edits.add(m.start("n"), m.end("n"), "Cystck_NULL")
        masked = unit.masked
        for ctx in _common.function_contexts(unit, with_locals=False):
            b0, b1 = ctx.body
            for m in regex.finditer(self.patterns[0], masked, pos=b0, endpos=b1):
                if m.group("c") not in classes or m.group("v") in ("return", "else"):
                    continue
                if m.group("e"):
                    edits.add(m.start("e"), m.start("e"), "(S)")
                elif regex.match(r"[({]\s*[)}]", masked[m.start("o"):]):
                    edits.add(m.start("o") + 1, m.start("o") + 1, "S")
                else:
                    edits.add(m.start("o") + 1, m.start("o") + 1, "S, ")
        if edits:
            unit.apply(edits)
        return edits.applied

    @staticmethod
    def _initialise(code, f, edits):
        """``: S(S)`` first in a constructor's member initialisers."""
        between = code[f.params[1]:f.body[0]]
        if regex.search(r"(?<![\w.])S\s*\(\s*S\s*\)", between):
            return
        colon = regex.search(r"(?<!:):(?!:)[ \t]*", between)
        if colon:
            at = f.params[1] + colon.end()
            if code[at] == "\n":       # the initialisers start on the next line: ``S(S),`` on its own
                line = regex.match(r"\n[ \t]*", code[at:]).end()
                edits.add(at + line, at + line, "S(S),\n" + code[at + 1:at + line])
            else:
                edits.add(at, at, "S(S), ")
        else:
            close = f.params[1] + 1    # after the parameters' ``)``
            edits.add(close, close, " : S(S)")


class IdentityKeyedContainers(Rule):
    """Reported, not rewritten: a C++ container keyed by object identity
    (``std::map<PyObject*, double>``, ``std::set<PyObject*>``...).  Handles
    are not identities (two handles to one object would be two keys, and a
    handle dies with its call), so a human must choose the key: the native
    struct of a custom type (``std::map<Variable*, double>``, filled with
    ``Variable_AsStruct(S, h)`` and turned back into an object with
    ``Cystck_FromStruct(S, p)``), or ``Cystck_AsPyObject`` where the
    objects are kept alive elsewhere."""
    name = "identity-keyed-containers"
    precedence = 570
    library = "c++"
    patterns = (r"\bstd::(?:map|multimap|unordered_map|set|multiset|unordered_set)\s*<\s*(?:const\s+)?PyObject\s*\*",)
    before = "static int n( std::map<PyObject*, double>& coeffs ) { return PyLong_Check( 0 ); }\n"
    after = "static int n( std::map<PyObject*, double>& coeffs ) { return PyLong_Check( 0 ); }\n"

    def apply(self, unit):
        for m in regex.finditer(self.patterns[0], unit.masked):
            unit.leftover(m.start(), "container keyed by PyObject* identity: handles are not identities; "
                          "key it by the native struct (Foo_AsStruct / Cystck_FromStruct) or another "
                          "stable key", self.name)
        return 0


# A class template (``template <typename T> class Array : public Base {``)
# and, in its body, a static type object member: one type per instantiation.
_CLASS_TEMPLATE = regex.compile(r"\btemplate\s*<[^<>;{}]*>\s*(?:class|struct)\s+(?P<name>\w+)\b[^;{}()]*\{")
_STATIC_TYPE_MEMBER = regex.compile(r"\bstatic\s+PyTypeObject\s+\w+\s*;")


def templated_type_objects(masked):
    """(position, class name) of each class template in ``masked`` whose
    instantiations are Python types of their own (a ``static PyTypeObject``
    member).  Cystck creates a type from a spec at run time and reaches an
    instance through a handle; such a class is the instance layout itself
    (it embeds the object header and reads it), so no rule ports it and
    its files stay stock as a whole (translate.kept_stock)."""
    found = []
    for m in _CLASS_TEMPLATE.finditer(masked):
        try:
            body = masked[m.end():source.matching(masked, m.end() - 1)]
        except source.BraceError:
            continue
        if _STATIC_TYPE_MEMBER.search(body):
            found.append((m.start(), m.group("name")))
    return found
