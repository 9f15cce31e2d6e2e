/* The OpenCL C sources of kernels/, embedded at build time by
 * tools/embed-cl.sh into kernels/kernels_embedded.c (never committed). */
#ifndef HOP_OCL_SOURCES_H
#define HOP_OCL_SOURCES_H

struct hop_ocl_source {
  const char *name; /* base name of the .cl file */
  const char *text;
};

/* Terminated by an entry whose name is NULL. */
extern const struct hop_ocl_source hop_ocl_sources[];

#endif
