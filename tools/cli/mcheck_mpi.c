/* mcheck_mpi.c: main of mcheck-mpi, the distributed search (reduce/mpi/mpi.c)
 * with mcheck's command line and reports: tools/mcheck.c is compiled again
 * with MCHECK_MPI (its main becomes mcheck_main, its search explore_mpi).
 * Every rank parses the same arguments, reads the model and runs the search;
 * only rank 0 prints: the others' stdout and stderr go to /dev/null (their
 * messages would repeat rank 0's), and they write no trace files. Why one
 * binary more rather than `mcheck --mpi`: mcheck must build and run where
 * there is no MPI, and a binary linked with libmpi needs it at run time. */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli_int.h"

static bool readied;
static int rank;

int mcheck_mpi_rank(void) { return rank; }

bool mcheck_mpi_ready(bool ok)
{
    readied = true;
    int mine = ok, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all != 0;
}

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "mcheck: error: MPI_Init failed\n");
        return 2;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0 && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)))
        MPI_Abort(MPI_COMM_WORLD, 2);
    int rc = mcheck_main(argc, argv);
    if (!readied) (void)mcheck_mpi_ready(false);
    MPI_Finalize();
    return rc;
}
