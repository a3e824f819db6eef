import gc


def check_subclass_del_keeps_the_deallocator(m):
    log = []

    class B(m.Block):
        def __del__(self):
            log.append("B __del__")

    class C(m.Closer):
        def __del__(self):
            log.append("C __del__")
    before = m.live()
    b, c, d = B(log, 8), C(log), m.Closer(log)
    del b, c, d
    gc.collect()
    return log, m.live() - before


CHECKS = [check_subclass_del_keeps_the_deallocator]
