/* live_por.c: --por in the nested depth-first searches for cycles
 * (nested.c, for --liveness=npc and --ltl): which threads a
 * product state expands. The conditions are Peled's for LTL without next
 * ("Combining partial order reductions with on-the-fly model-checking",
 * CAV 1994; Clarke, Grumberg and Peled, Model Checking, section 10.5):
 * C0 and C1, a non-empty persistent set (por.c); C2, visibility: when a
 * step of the set is visible, every enabled thread; C3, the cycle proviso
 * on the outer search's stack, as dfs_por.c has it: a state one of whose
 * successors by the set is on the stack is expanded fully (the searches
 * detect it and take the rest, `rest`, in a second round). A step into an
 * error (no successors) expands its state fully too, as in dfs_por.c.
 * --liveness=npc needs no stack proviso (nested.c, proviso()): a cycle
 * of states none of which is expanded fully is a non-progress cycle.
 *
 * Visible steps. --ltl: a step that may change a prop the formula reads:
 * every step of a thread whose location a prop reads, and a step whose
 * first instruction stores to a volatile element a prop reads or acquires,
 * releases or waits on a lock whose owner a prop reads. Only the first
 * instruction can: a prop reads only what changes at a visible operation
 * (vm/props.c makes the releases of its locks visible), and a composed
 * step's visible operation is its first. Loads change nothing.
 * --liveness=npc: a
 * progress step. "Finitely many progress steps" is a stutter-invariant
 * property of the parity of the progress steps taken, which exactly the
 * progress steps change, and persistent sets commute independent steps
 * only, so C2 over progress steps is Peled's condition for it.
 *
 * The nested search takes the outer search's decisions (Holzmann, Peled
 * and Yannakakis, "On nested depth first search", SPIN 1996, section 4):
 * the outer search records every product state its provisos expanded fully
 * (`full`, keyed by a 64-bit hash of the state and automaton state), and
 * a nested search expands exactly what the outer one did; so both search
 * one reduced graph. Sleep sets are not used: they keep every reachable
 * state, not every cycle. Starvation (starvation.c) is about whether each
 * thread is enabled, which any step may change, and refuses --por. */
#include <stdlib.h>

#include "nested_int.h"
#include "por_int.h"

bool live_por_start(search *S)
{
    if (!S->o->por || !S->o->ltl || !S->por) return true;
    const ltl_automaton *A = S->o->ltl;
    uint64_t used = 0;
    for (uint32_t q = 0; q < A->nstates; q++) used |= A->pos[q] | A->neg[q];
    ND(S)->prop_objs = por_prop_objects(S->por, used, &ND(S)->prop_at);
    if (!ND(S)->prop_objs) {
        S->lim.stop = STOP_NOMEM;
        return false;
    }
    return true;
}

/* May thread t's step in s change what the property reads? */
static bool visible(search *S, const uint8_t *s, int t)
{
    if (!S->o->ltl) return is_progress(S->p, s, t);
    /* a prop at a label of a thread the step moves (a rendezvous' receiver) */
    uint64_t at = ND(S)->prop_at;
    return ((at >> t) & 1) || (at && (por_partners(S->por, s, t) & at)) ||
           por_first_writes(S->por, s, t, ND(S)->prop_objs);
}

uint64_t live_por_todo(search *S, const uint8_t *s, uint64_t enabled, bool nested, uint64_t key,
                       uint64_t *rest)
{
    *rest = 0;
    if (!S->o->por || !S->por || !por_applies(S->por) || __builtin_popcountll(enabled) <= 1)
        return enabled;
    if (nested && map_get(&ND(S)->full, key)) return enabled;
    uint64_t ps = por_persistent(S->por, s, enabled);
    if (ps == enabled) return enabled;
    for (uint64_t m = ps; m; m &= m - 1)
        if (visible(S, s, __builtin_ctzll(m))) return enabled;
    if (!nested) S->r->stats.por_reduced++;
    *rest = enabled & ~ps;
    return ps;
}

bool live_por_full(search *S, uint64_t key)
{
    S->r->stats.por_proviso++;
    return map_put(S, &ND(S)->full, key, 1);
}
