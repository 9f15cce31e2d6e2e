# ScaLAPACK over MPI with hopblas under every rank (the OpenCL engine forced).
# The check program is compiled by the test itself with Open MPI's mpicc.
HOP_MPI_TESTS = test/mpi/scalapack.test
if HOP_OPENCL
TESTS += $(HOP_MPI_TESTS)
endif
dist_check_SCRIPTS += $(HOP_MPI_TESTS)
EXTRA_DIST += test/mpi/scalapack_check.c
