/* reduce_mpi.h: the distributed breadth-first search over MPI (mpi.c),
 * built only when CMake finds MPI (the reduce_mpi library, linked into
 * mcheck-mpi). Every rank of MPI_COMM_WORLD calls explore_mpi() with the
 * same program and options; they search together and each returns the
 * same result: totals, the errors with their paths, and one explore_rank
 * per rank. With --por, persistent sets under a static cycle proviso
 * (mpi.c). Not here: depth-first order, -j inside a rank, bitstate,
 * --dump-states (explore_mpi_unsupported() names what it refuses). */
#ifndef MCHECK_REDUCE_MPI_H
#define MCHECK_REDUCE_MPI_H

#include "reduce.h"

/* NULL if the distributed search supports options o, else the option it
 * does not support ("-j", "--store=bitstate", ...), for a usage error. */
const char *explore_mpi_unsupported(const explore_options *o);

/* The distributed search as an engine (reduce/engine/engine.h): set
 * explore_options.engine to it and explore_run() runs explore_mpi(), and
 * explore_check() refuses what it does not support (with every option the
 * sequential searches have that it lacks: --liveness, --ltl, stateless). */
extern const struct engine engine_mpi;

/* The search, collective over MPI_COMM_WORLD (MPI initialized). Returns 0,
 * or -1 if the options are unsupported or nothing could be allocated on
 * some rank (then r holds STOP_NOMEM on every rank). Free r with
 * explore_result_free(). */
int explore_mpi(const vm_program *p, const explore_options *o, explore_result *r);

#endif
