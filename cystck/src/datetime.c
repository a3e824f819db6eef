/*
 * datetime's C API (datetime.h) for handles.  CPython exports it through a
 * capsule that each translation unit imports into its own static
 * PyDateTimeAPI (PyDateTime_IMPORT); the runtime imports it here at the
 * first call that needs it, so an extension needs no PyDateTime_IMPORT of
 * its own for these functions.
 */
#include "internal.h"
#include <datetime.h>

/* The capsule's table, imported once; NULL with an exception set if the
 * datetime module cannot be imported. */
static PyDateTime_CAPI *datetime_api(void)
{
    if (PyDateTimeAPI == NULL)
        PyDateTime_IMPORT;
    return PyDateTimeAPI;
}

/* The object of o if it is an instance of type (a subclass too); NULL with
 * an exception set otherwise: the stock accessors do not check, ours raise
 * instead of reading another object's memory. */
static PyObject *instance_of(Cystck_State *S, Cystck_Object o, PyTypeObject *type, const char *func)
{
    PyObject *o_ = _Cystck_Get(o);
    if (o_ == NULL) {
        _Cystck_BadArgAt(S, func, o, _CYSTCK_CALLER());
        return NULL;
    }
    if (!PyObject_TypeCheck(o_, type)) {
        PyErr_Format(PyExc_TypeError, "%s: expected %s, not %.200s", func, type->tp_name,
                     Py_TYPE(o_)->tp_name);
        return NULL;
    }
    return o_;
}

/* An isinstance test: -1 with an exception for the null handle or when
 * datetime cannot be imported. */
static int is_instance(Cystck_State *S, Cystck_Object o, size_t type_offset, const char *func)
{
    PyObject *o_ = _Cystck_Get(o);
    PyDateTime_CAPI *api;
    if (o_ == NULL) {
        _Cystck_BadArgAt(S, func, o, _CYSTCK_CALLER());
        return -1;
    }
    if ((api = datetime_api()) == NULL)
        return -1;
    return PyObject_TypeCheck(o_, *(PyTypeObject **)((char *)api + type_offset));
}

int CystckDate_Check(Cystck_State *S, Cystck_Object o)
{
    return is_instance(S, o, offsetof(PyDateTime_CAPI, DateType), "CystckDate_Check");
}

int CystckDateTime_Check(Cystck_State *S, Cystck_Object o)
{
    return is_instance(S, o, offsetof(PyDateTime_CAPI, DateTimeType), "CystckDateTime_Check");
}

int CystckTime_Check(Cystck_State *S, Cystck_Object o)
{
    return is_instance(S, o, offsetof(PyDateTime_CAPI, TimeType), "CystckTime_Check");
}

/* A field of a date (or datetime) or a time, or -1 with an exception. */
#define FIELD(NAME, TYPE, READ)                                                  \
    int NAME(Cystck_State *S, Cystck_Object o)                                   \
    {                                                                            \
        PyDateTime_CAPI *api = datetime_api();                                   \
        PyObject *o_ = api ? instance_of(S, o, api->TYPE, #NAME) : NULL;         \
        return o_ != NULL ? READ(o_) : -1;                                       \
    }

FIELD(CystckDateTime_GET_YEAR, DateType, PyDateTime_GET_YEAR)
FIELD(CystckDateTime_GET_MONTH, DateType, PyDateTime_GET_MONTH)
FIELD(CystckDateTime_GET_DAY, DateType, PyDateTime_GET_DAY)
FIELD(CystckDateTime_DATE_GET_HOUR, DateTimeType, PyDateTime_DATE_GET_HOUR)
FIELD(CystckDateTime_DATE_GET_MINUTE, DateTimeType, PyDateTime_DATE_GET_MINUTE)
FIELD(CystckDateTime_DATE_GET_SECOND, DateTimeType, PyDateTime_DATE_GET_SECOND)
FIELD(CystckDateTime_DATE_GET_MICROSECOND, DateTimeType, PyDateTime_DATE_GET_MICROSECOND)
FIELD(CystckDateTime_TIME_GET_HOUR, TimeType, PyDateTime_TIME_GET_HOUR)
FIELD(CystckDateTime_TIME_GET_MINUTE, TimeType, PyDateTime_TIME_GET_MINUTE)
FIELD(CystckDateTime_TIME_GET_SECOND, TimeType, PyDateTime_TIME_GET_SECOND)
FIELD(CystckDateTime_TIME_GET_MICROSECOND, TimeType, PyDateTime_TIME_GET_MICROSECOND)

#undef FIELD

Cystck_Object CystckDate_FromDate(Cystck_State *S, int year, int month, int day)
{
    PyDateTime_CAPI *api = datetime_api();
    return api ? _Cystck_Own(S, api->Date_FromDate(year, month, day, api->DateType)) : Cystck_NULL;
}

Cystck_Object CystckDateTime_FromDateAndTime(Cystck_State *S, int year, int month, int day, int hour,
                                             int minute, int second, int usecond)
{
    PyDateTime_CAPI *api = datetime_api();
    return api ? _Cystck_Own(S, api->DateTime_FromDateAndTime(year, month, day, hour, minute, second, usecond,
                                                               Py_None, api->DateTimeType))
               : Cystck_NULL;
}

Cystck_Object CystckTime_FromTime(Cystck_State *S, int hour, int minute, int second, int usecond)
{
    PyDateTime_CAPI *api = datetime_api();
    return api ? _Cystck_Own(S, api->Time_FromTime(hour, minute, second, usecond, Py_None, api->TimeType))
               : Cystck_NULL;
}

/* PyDelta_FromDSU: the days, seconds and microseconds normalized, as
 * timedelta(days, seconds, microseconds) does. */
Cystck_Object CystckDelta_FromDSU(Cystck_State *S, int days, int seconds, int useconds)
{
    PyDateTime_CAPI *api = datetime_api();
    return api ? _Cystck_Own(S, api->Delta_FromDelta(days, seconds, useconds, 1, api->DeltaType)) : Cystck_NULL;
}
