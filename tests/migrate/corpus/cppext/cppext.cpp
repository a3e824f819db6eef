// A C++ extension with the stock C API: std::string and std::vector.
#include <Python.h>

#include <string>
#include <vector>

static PyObject *
join(PyObject *self, PyObject *args)
{
    std::string out;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *s = PyUnicode_AsUTF8(PyTuple_GET_ITEM(args, i));
        if (s == nullptr)
            return nullptr;
        if (i)
            out += '-';
        out += s;
    }
    return PyUnicode_FromStringAndSize(out.data(), (Py_ssize_t)out.size());
}

static PyObject *
evens(PyObject *self, PyObject *arg)
{
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred())
        return nullptr;
    std::vector<long> v;
    for (long i = 0; i < n; i += 2)
        v.push_back(i);
    PyObject *list = PyList_New((Py_ssize_t)v.size());
    if (list == nullptr)
        return nullptr;
    for (size_t i = 0; i < v.size(); i++)
        PyList_SET_ITEM(list, (Py_ssize_t)i, PyLong_FromLong(v[i]));
    return list;
}

static PyMethodDef cppext_methods[] = {
    {"join", (PyCFunction)join, METH_VARARGS, "join strings with '-'"},
    {"evens", (PyCFunction)evens, METH_O, "even numbers below n"},
    {nullptr, nullptr, 0, nullptr}
};

static struct PyModuleDef cppext_module = {
    PyModuleDef_HEAD_INIT, "cppext", "C++ corpus extension", -1, cppext_methods
};

PyMODINIT_FUNC
PyInit_cppext(void)
{
    return PyModule_Create(&cppext_module);
}
