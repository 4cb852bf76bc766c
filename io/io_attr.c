/* SPDX-License-Identifier: MIT */
/*
 * io_attr.c - HDF5 attributes of an open io_file (io_file.c opens,
 * creates and commits the files): scalars, int64 arrays and strings, written
 * on create (intermediate groups made as needed) and read with their type
 * and size checked, each failure naming the file.
 */
#include "io.h"
#include "io_direct.h"

#include "common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- attributes ---------------------------------------------------------- */

static hid_t open_obj(io_file *f, const char *obj, int create)
{
    hid_t o;
    if (strcmp(obj, "/") == 0)
        return H5Oopen(f->fid, "/", H5P_DEFAULT);
    if (H5Lexists(f->fid, obj, H5P_DEFAULT) > 0)
        return H5Oopen(f->fid, obj, H5P_DEFAULT);
    if (!create)
        return -1;
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    o = H5Gcreate2(f->fid, obj, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    return o;
}

static int attr_write(io_file *f, const char *obj, const char *name, hid_t ftype,
                      hid_t mtype, hsize_t n, const void *v)
{
    int rc = G5_OK;
    hid_t o = open_obj(f, obj, 1), sp = -1, a = -1;
    if (o < 0)
        return g5_error(G5_ERR_IO, "%s: cannot create group %s", f->path, obj);
    sp = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    if (H5Aexists(o, name) > 0)
        H5Adelete(o, name);
    errno = 0;
    a = H5Acreate2(o, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0 || H5Awrite(a, mtype, v) < 0)
        rc = g5_error(G5_ERR_IO, "%s: cannot write attribute %s of %s: %s", f->path, name, obj,
                      io_write_reason(errno));
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    H5Oclose(o);
    return rc;
}

int io_attr_write_int64(io_file *f, const char *obj, const char *name, int64_t v)
{
    return attr_write(f, obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &v);
}

int io_attr_write_uint64(io_file *f, const char *obj, const char *name, uint64_t v)
{
    return attr_write(f, obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &v);
}

int io_attr_write_double(io_file *f, const char *obj, const char *name, double v)
{
    return attr_write(f, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &v);
}

int io_attr_write_int64_array(io_file *f, const char *obj, const char *name,
                              const int64_t *v, int64_t n)
{
    int64_t dummy = 0;
    if (n <= 0) /* HDF5 has no empty simple dataspace for attributes */
        return attr_write(f, obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &dummy);
    return attr_write(f, obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, (hsize_t)n, v);
}

int io_attr_write_string(io_file *f, const char *obj, const char *name, const char *v)
{
    int rc;
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(v) ? strlen(v) : 1);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    rc = attr_write(f, obj, name, t, t, 0, strlen(v) ? v : " ");
    H5Tclose(t);
    return rc;
}

int io_attr_exists(io_file *f, const char *obj, const char *name)
{
    hid_t o = open_obj(f, obj, 0);
    int yes;
    if (o < 0)
        return 0;
    yes = H5Aexists(o, name) > 0;
    H5Oclose(o);
    return yes;
}

/* Open attribute `name` of `obj` and check its type class and element count
 * (n < 0: any count). Returns the attribute id or -1 with the message set. */
static hid_t attr_open_checked(io_file *f, const char *obj, const char *name,
                               H5T_class_t cls, hssize_t n, hssize_t *count)
{
    hid_t o = open_obj(f, obj, 0), a = -1, t, sp;
    hssize_t got;
    if (o < 0) {
        g5_error(G5_ERR_FORMAT, "%s: missing group %s", f->path, obj);
        return -1;
    }
    if (H5Aexists(o, name) <= 0 || (a = H5Aopen(o, name, H5P_DEFAULT)) < 0) {
        g5_error(G5_ERR_FORMAT, "%s: missing attribute %s%s%s", f->path,
                 strcmp(obj, "/") ? obj : "", strcmp(obj, "/") ? "/" : "", name);
        H5Oclose(o);
        return -1;
    }
    H5Oclose(o);
    t = H5Aget_type(a);
    sp = H5Aget_space(a);
    got = H5Sget_simple_extent_npoints(sp);
    H5Sclose(sp);
    if (H5Tget_class(t) != cls || (n >= 0 && got != n)) {
        g5_error(G5_ERR_FORMAT, "%s: attribute %s has the wrong type or size", f->path, name);
        H5Tclose(t);
        H5Aclose(a);
        return -1;
    }
    H5Tclose(t);
    if (count)
        *count = got;
    return a;
}

static int attr_read_scalar(io_file *f, const char *obj, const char *name,
                            H5T_class_t cls, hid_t mtype, void *v)
{
    hid_t a = attr_open_checked(f, obj, name, cls, 1, NULL);
    int rc = G5_OK;
    if (a < 0)
        return G5_ERR_FORMAT;
    if (H5Aread(a, mtype, v) < 0)
        rc = g5_error(G5_ERR_FORMAT, "%s: cannot read attribute %s", f->path, name);
    H5Aclose(a);
    return rc;
}

int io_attr_read_int64(io_file *f, const char *obj, const char *name, int64_t *v)
{
    return attr_read_scalar(f, obj, name, H5T_INTEGER, H5T_NATIVE_INT64, v);
}

int io_attr_read_uint64(io_file *f, const char *obj, const char *name, uint64_t *v)
{
    return attr_read_scalar(f, obj, name, H5T_INTEGER, H5T_NATIVE_UINT64, v);
}

int io_attr_read_double(io_file *f, const char *obj, const char *name, double *v)
{
    return attr_read_scalar(f, obj, name, H5T_FLOAT, H5T_NATIVE_DOUBLE, v);
}

int io_attr_read_int64_array(io_file *f, const char *obj, const char *name,
                             int64_t *v, int64_t *n)
{
    hssize_t count = 0;
    int rc = G5_OK;
    hid_t a = attr_open_checked(f, obj, name, H5T_INTEGER, -1, &count);
    if (a < 0)
        return G5_ERR_FORMAT;
    if (count > *n)
        rc = g5_error(G5_ERR_FORMAT, "%s: attribute %s has %lld values, at most %lld expected",
                      f->path, name, (long long)count, (long long)*n);
    else if (H5Aread(a, H5T_NATIVE_INT64, v) < 0)
        rc = g5_error(G5_ERR_FORMAT, "%s: cannot read attribute %s", f->path, name);
    H5Aclose(a);
    *n = count;
    return rc;
}

int io_attr_read_string(io_file *f, const char *obj, const char *name, char *buf, size_t len)
{
    hid_t a = attr_open_checked(f, obj, name, H5T_STRING, 1, NULL), t, mt;
    int rc = G5_OK;
    if (a < 0)
        return G5_ERR_FORMAT;
    t = H5Aget_type(a);
    if (H5Tis_variable_str(t) > 0) {
        char *s = NULL;
        mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, H5T_VARIABLE);
        if (H5Aread(a, mt, &s) < 0 || !s)
            rc = g5_error(G5_ERR_FORMAT, "%s: cannot read attribute %s", f->path, name);
        else
            snprintf(buf, len, "%s", s);
        free(s);
        H5Tclose(mt);
    } else {
        size_t sz = H5Tget_size(t);
        char *tmp = malloc(sz + 1);
        mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, sz + 1);
        H5Tset_strpad(mt, H5T_STR_NULLTERM);
        if (!tmp || H5Aread(a, mt, tmp) < 0)
            rc = g5_error(G5_ERR_FORMAT, "%s: cannot read attribute %s", f->path, name);
        else
            snprintf(buf, len, "%s", tmp);
        free(tmp);
        H5Tclose(mt);
    }
    H5Tclose(t);
    H5Aclose(a);
    return rc;
}
