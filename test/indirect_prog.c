/* A program that reaches BLAS only through test/indirect_lib.c's library. */
#include <stdio.h>

float indirect_trace(void);

int main(void)
{
  float t = indirect_trace();
  printf("trace %g\n", t);
  return t == 5.0f ? 0 : 1;
}
