/* The process's place in an MPI job, as the launchers publish it in the
 * environment before the program starts: hopblas never calls MPI (it is
 * not linked with it, and a rank's BLAS calls may come before MPI_Init).
 * The trace's %r reads it. */
#include <errno.h>
#include <stdlib.h>

#include "hop.h"

/* Open MPI, then MPICH's Hydra (PMI), PMIx launchers, Slurm's srun, Cray's PALS. */
static const char *const world_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                         "SLURM_PROCID", "PALS_RANKID", NULL};
static const char *const local_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                         "PMI_LOCAL_RANK", "SLURM_LOCALID", "PALS_LOCAL_RANKID",
                                         NULL};

bool hop_mpi_rank(bool local, long *rank, const char **from)
{
  for (const char *const *v = local ? local_vars : world_vars; *v != NULL; v++) {
    const char *s = getenv(*v);
    if (s == NULL || *s == '\0')
      continue;
    char *end;
    errno = 0;
    long r = strtol(s, &end, 10);
    if (*end != '\0' || errno != 0 || r < 0)
      continue; /* not a rank: another launcher's variable of the same name, say */
    *rank = r;
    if (from != NULL)
      *from = *v;
    return true;
  }
  return false;
}
