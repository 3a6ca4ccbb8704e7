/* nested.c: the part of the context the two nested depth-first searches
 * share (nested_int.h: liveness.c, ltl_search.c), and the options both
 * refuse: a nested DFS (Courcoubetis, Vardi, Wolper and Yannakakis 1990) is
 * sequential and depth-first, and a bitstate store could hide a cycle. */
#include <stdio.h>
#include <stdlib.h>

#include "nested_int.h"

void nested_free(search *S)
{
    nested_ctx *nd = ND(S);
    map_free(&nd->onstack);
    map_free(&nd->full);
    free(nd->check);
    free(nd->prop_objs);
}

uint64_t nested_reserved(const search *S)
{
    return map_bytes(&ND(S)->onstack) + map_bytes(&ND(S)->full);
}

const char *nested_refuses(const explore_options *o, const char *what, char *msg, size_t n)
{
    if (o->search != SEARCH_DFS) {
        snprintf(msg, n, "%s is a nested depth-first search: it cannot be used with --search=%s",
                 what, search_order_name(o->search));
        return msg;
    }
    if (o->workers) {
        snprintf(msg, n, "%s is a sequential nested depth-first search: it cannot be used with -j",
                 what);
        return msg;
    }
    if (o->store.kind == STORE_BITSTATE) {
        snprintf(msg, n, "%s cannot be used with --store=bitstate (a missed state could hide a "
                         "cycle without a bound on the omission); use compact or exact", what);
        return msg;
    }
    return NULL;
}
