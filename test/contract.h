/* The contract sweep's groups (contract_groups.c) and its driver (contract.c). */
#ifndef HT_CONTRACT_H
#define HT_CONTRACT_H

#include "testutil.h"

struct ct_opts {
  int max_dim;      /* every dimension is clamped to this */
  bool dtypes[HT_DTYPE_COUNT]; /* indexed by enum ht_dtype */
  bool entries[2];  /* indexed by enum ht_entry */
  bool quick;       /* fewer shapes and combinations, for slow engines */
  int large;        /* > 0: also a group at about this size */
  unsigned long long seed;
  double tol;       /* c in c*k*eps */
  const char *expect_cpu_blas;
  const char *label; /* prefix of every description, "" by default */
  enum ht_names names; /* which names the calls go through (--names) */
};

enum ct_kind {
  CT_SMALL,       /* m, n, k in 0..3, every order, transpose, alpha, beta */
  CT_SHAPES,      /* primes, tall and skinny, up to max_dim */
  CT_BETA0,       /* beta == 0 with NaN and Inf in C */
  CT_ALPHA0,      /* alpha == 0 with NaN in A and B */
  CT_HALF_EDGES,  /* fp16 subnormals, +-inf, NaN, overflow on rounding */
  CT_LARGE,       /* --large N */
  CT_KIND_COUNT
};

struct ct_group {
  enum ht_dtype dtype;
  enum ht_entry entry;
  enum ct_kind kind;
};

struct ct_result {
  int calls, failures;
  char first_call[512]; /* the first failing call, described */
  char first_why[512];
};

const char *ct_kind_name(enum ct_kind kind);
void ct_run_group(const struct ct_opts *o, const struct ct_group *g, struct ht_rng *rng,
                  struct ct_result *res);

#endif
