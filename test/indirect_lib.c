/* A library that calls sgemm_ on its program's behalf, the way ScaLAPACK or
 * LAPACK do: built at test time against the system's -lblas, so its only
 * BLAS dependency is libblas.so.3 and the program never calls BLAS itself. */

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *);

/* The trace of C = A B for A = [1 3; 2 4] and B = I (column major): 5. */
float indirect_trace(void)
{
  const int n = 2;
  const float one = 1.0f, zero = 0.0f;
  const float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1};
  float c[4];
  sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
  return c[0] + c[3];
}
