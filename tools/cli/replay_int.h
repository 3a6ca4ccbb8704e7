/* replay_int.h: private to mcheck --replay (replay_read.c reads the file
 * and the model, replay_cli.c replays the path and reports): what the file
 * recorded, merged with the command line. */
#ifndef MCHECK_TOOLS_REPLAY_INT_H
#define MCHECK_TOOLS_REPLAY_INT_H

#include <cjson/cJSON.h>

#include "cli_int.h"

/* JSON integers mcheck reads exactly: a double holds every one up to 2^53. */
#define JSON_INT_MAX 9007199254740992.0

/* What the file recorded, merged with the command line. */
typedef struct recorded {
    const char *model;        /* the model the search ran on; NULL: not recorded */
    const char *kind;         /* the recorded error's verdict name and message */
    const char *message;
    explore_step *path;
    uint32_t len;
    explore_options eo;       /* the command line's, with the recorded options */
    bool spurious;
    vm_define *defs;          /* recorded, then the command line's overrides */
    size_t ndefs;
    const cJSON *adapted;     /* names --adapt made volatile; NULL: none */
    bool lasso;               /* a non-progress cycle: "cycle_start" recorded */
    uint32_t cycle_start;
    bool ltl_lasso;           /* an ltl_violated error ("options"."ltl") */
    bool starvation;          /* a starvation error (--liveness=starvation) */
    ltl_automaton *ltl;       /* the recorded formula re-translated (load_model()) */
    int32_t starved;          /* "starved_tid"; -1: by its name "starved" */
    const char *starved_name; /* "starved"; NULL: not recorded */
    explore_adaptation ad;    /* those variables (load_model()), for the report */
} recorded;

/* "mcheck: error: FILE: ...": a file that cannot be replayed. Returns 2,
 * the exit status. */
int replay_file_error(const replay_request *rq, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The file of rq read (*root, which the caller frees with cJSON_Delete),
 * the error to replay picked, its path and options read into r over the
 * command line's, and the model assembled with them (*p). Returns 0, or
 * the exit status after a message (2 a bad file or a contradicting option,
 * 3 out of memory); what it set is the caller's to free either way. */
int replay_read(const replay_request *rq, cJSON **root, recorded *r, vm_program **p);

#endif
