/* gen_model.c: random, small, lock-disciplined models for the differential
 * test of the lock-based reduction (tests/differential/differential.py), and with
 * --undisciplined models that may break the discipline (tests/differential/theorem9.py).
 *
 *   gen_model SEED [--size small|medium] [--undisciplined] [--volatile] [--spawns]
 *             [--waiters] [--handoff] [--atomic] [--calls] [--conds] [--rendezvous]
 *
 * prints one model in the language of LANGUAGE.md, a pure function of the
 * seed (own splitmix64 generator, no rand()). Every `shared` element is only
 * ever touched while its one designated lock element is held (or is read-only,
 * or belongs to an `init` phase that ends before any other thread can touch
 * it), so
 * LD' holds and Stoller's Theorems 4 and 5 promise that the reduced search
 * finds the same visible states, deadlocks and errors as the full one. The
 * models mix 2-4 bodies (thread arrays of 2 or 3, `main` spawning and
 * joining one or two procs, a proc spawning and joining a helper), scalar
 * and array locks with computed indexes, nested and recursive acquires (lock
 * orders may be opposite, so deadlocks happen), volatile variables, `init
 * main` variables, `init T` variables published by T through a volatile flag,
 * `choose`, Java-monitor wait/notify in a re-checking loop
 * (at depth 2 now and then, chained: woken, then notifying another monitor),
 * channels of capacity 1-4, every arithmetic and comparison operation, asserts
 * that may fail, rare runtime errors, end labels, bounded loops, and now and
 * then a body that ends in a loop that never ends (emit_forever: a cycle of
 * the state graph, for --por's cycle provisos). Every loop is counted,
 * blocks/spins on a visible operation or runs forever through one, and every
 * value is reduced modulo a small number, so the state space is finite and
 * small.
 *
 * The spelling varies too (LANGUAGE.md, "Declarations"): consecutive
 * declarations of one keyword share a line as a comma list, and constants
 * (array sizes, initializers, proc maxima, instruction operands) are now and
 * then written as constant expressions (+ - * / % ( ), unary minus) over
 * consts D0 .. that are defined from each other, in shuffled order, some
 * after the bodies that use them. These choices come from a second
 * generator (srnd(), ex()), so every value and every line of code, and so
 * the meaning of each seed's model, are what plain numbers gave.
 *
 * With --volatile (tests/differential/test_races.py) the models are volatile-heavy: `v`
 * and `va` always exist, volatile traffic replaces some other pieces, and
 * guarded variables without an `init` clause are declared volatile (still
 * accessed under their locks). Without it no extra random number is drawn.
 *
 * With --spawns (tests/differential/differential.py, theorem9.py, test_stateless.py,
 * test_races.py on a share of their seeds) the models are spawn-heavy: two
 * static threads (main, t1; with --size medium now and then t2 too) each
 * spawn and join a proc of their own (worker, helper, aux; now and then two
 * instances, or a chain: a proc spawning a proc `sub`), maybe after a piece
 * of work; the size limit is a third of the usual (more threads). Thread
 * ids come from one counter (LANGUAGE.md), so the order in which different
 * threads spawn different procs decides which child gets which id: the
 * spawners now and then assert on an id a spawn returned, branch on it or
 * store it (under its lock), and the children use `tid` in lock and array
 * indexes, in stored values and in assertions. What a reduction that takes
 * spawns of different procs for independent gets wrong (tests/mutate.py's
 * por-spawn-per-proc). Without the option no extra random number is drawn,
 * so every seed's model is what it was.
 *
 * With --waiters (tests/differential/differential.py on a share of its seeds)
 * the models are monitor-heavy: one or two monitors always; a notifier, while
 * it holds the monitor's lock, now and then runs a critical section of
 * another lock (a visible step of the lock's owner), and a waiter, once woken
 * and out of the monitor, now and then runs one too. Threads wait while
 * others' steps touch what the waiters touch later: what --por's rule for
 * waiting threads (reduce/ts/por.c, waiters_of(); Stoller's Figure 3) gets
 * wrong if it leaves out a waiter that someone outside the persistent set
 * may still notify (tests/mutate.py's por-waiter-always-deferred). Without
 * the option no extra random number is drawn.
 *
 * With --atomic (tests/differential/differential.py on a share of its
 * seeds; issue 30) a piece is now and then an atomic block over a volatile
 * (fetch-and-add, a compare-and-swap loop, a decrement guarded by
 * `assume`), a critical section inside a block, or an `assume` that blocks
 * a thread for good on one choice (gen_model_body.c, emit_atomic()).
 * Without the option no extra random number is drawn.
 *
 * With --conds (tests/differential/differential.py on a share of its seeds,
 * one run of them with --spurious-wakeups) the models have one or two
 * monitors always, and most of them are pthread condition variables: `cond
 * cvN` beside the monitor's lock, the waiter `cwait cvN, lk` at depth 1 (never
 * under another hold of lk), in a `while` re-check loop or (now and then)
 * checking once, the notifier `csignal` or `cbroadcast`, under the lock or
 * just after its release. Without the option no extra random number is drawn.
 *
 * With --rendezvous (tests/differential/differential.py on a share of its
 * seeds) the models have a channel always (two now and then), and the
 * first of them, and each other one by chance, is a rendezvous channel
 * (`chan cN[0]`): a send waits for a receiver standing at its recv and both
 * move in one step. Its receiver is another body (now and then the sender's
 * own: its instances all block at their sends), an endless server at an end
 * label more often than for a buffered channel (so the senders' surplus is
 * taken), and after a recv there is now and then a run of invisible
 * arithmetic (the receiver's tail in the rendezvous step; the assert on the
 * message may fail there). Sends and receives are never inside atomic
 * blocks (an assembly error for a rendezvous); a send under a lock the
 * receiver needs first, or counts that do not match, deadlock. Without the
 * option no extra random number is drawn.
 *
 * With --handoff (tests/differential/test_hb_discharge.py) every proc a
 * body spawns gets its input in `hiP`, written by the spawner before the
 * spawn, and returns its result in `hoP`, read by the spawner after the
 * join (with an assert on the value; arrays indexed by the child's self
 * when a thread spawns it): data that happens-before orders
 * without a lock (lockset/discharge_hb.c). Now and then the spawner writes
 * the input again after the spawn, or reads the result before the join or
 * after the join of another child only: a race; two instances of one proc
 * race on the result too. Its choices
 * come from a third generator (hrnd()), so the rest of the model draws
 * what it draws without the option (the size estimate, and so a redraw,
 * may still differ). Not with --undisciplined. Without the option no extra
 * random number is drawn.
 *
 * With --calls (tests/differential/differential.py and theorem9.py on a share
 * of their seeds) a body now and then has one or two subroutines (fn0, fn1),
 * written after its code and an `end`, each a piece or two (critical
 * sections, volatile traffic, a racy access with --undisciplined) and `ret`,
 * called from two or more sites of the body (a piece of the body becomes a
 * call now and then; fn0 may call fn1), sometimes with `stack N` as the
 * body's first line: what a static walker that misses a `ret`'s return sites
 * gets wrong (tests/mutate.py's ret-no-successors). Without the option no
 * extra random number is drawn.
 *
 * With --undisciplined (tests/differential/theorem9.py, Stoller's Theorem 9) the model
 * breaks LD' now and then, at a rate drawn per model: accesses without the
 * guard or under another lock (maybe only on one branch of a choose or of a
 * volatile test), a lock taken on one branch only, an access after the
 * release, a write to a read-only variable or after an `init` phase, an
 * `init T` variable that another thread may reach first, an unshared
 * variable touched by a second body. These models have no rare runtime
 * errors: the only runtime_error is the unshared violation, and assertions
 * are the only errors other than violations that end a path. Without the
 * option no extra random number is drawn, so the disciplined model of every
 * seed is unchanged.
 *
 * It never generates assembly errors: a model that does not assemble is a
 * generator bug.
 *
 * Adding a language feature (keep the random models covering the language;
 * tests/README.md has the whole checklist):
 *  1. write it in a piece (emit_* in gen_model_access.c and gen_model_body.c,
 *     called from piece(), cs_contents() or a body role in gen_body()) or a
 *     declaration (plan(), print_model() in gen_model_decl.c);
 *     keep the model disciplined (shared accesses under their guard), finite
 *     (values reduced modulo something, loops counted) and free of runtime
 *     errors unless it is a hazard (emit_hazard, never with --undisciplined);
 *  2. draw every choice through rnd()/chance() (deterministic per seed;
 *     srnd() for a choice of spelling only, never of meaning); in
 *     --undisciplined-only code draw through brk() or under g->undisc, so the
 *     disciplined model of each seed does not depend on the option;
 *  3. add the construct to checks.py (constructs(), COVERAGE): the
 *     differential test prints it per 1000 seeds and fails if it never shows;
 *  4. run differential.py and theorem9.py (they run tests/ref/refcheck.py on
 *     the small models: if refcheck lacks the feature, add it there first). */

/* The files: gen_model.c (this one: options and the driver that redraws a
 * model over the size limit), gen_model_int.h (shared types and
 * declarations), gen_model_decl.c (random generators, declarations, plan(),
 * print_model()), gen_model_access.c (operands, critical sections,
 * undisciplined accesses), gen_model_handoff.c (ownership hand-offs),
 * gen_model_chan.c (channel roles: send, receive, exchange; the order of
 * rendezvous partners), gen_model_body.c (the other pieces and the
 * bodies). */
#include "gen_model_int.h"

static int usage(void)
{
    fprintf(stderr, "usage: gen_model SEED [--size small|medium] [--undisciplined] [--volatile]"
                    " [--spawns] [--waiters] [--handoff] [--atomic] [--calls] [--conds]"
                    " [--rendezvous]\n");
    return 2;
}

int main(int argc, char **argv)
{
    gen g;
    memset(&g, 0, sizeof g);
    const char *seed_s = NULL;
    bool undisc = false, vol = false, sp = false, wt = false, ho = false, at = false;
    bool calls = false, cv = false, rv = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--undisciplined")) {
            undisc = true;
        } else if (!strcmp(argv[i], "--volatile")) {
            vol = true;
        } else if (!strcmp(argv[i], "--waiters")) {
            wt = true;
        } else if (!strcmp(argv[i], "--conds")) {
            cv = true;
        } else if (!strcmp(argv[i], "--spawns")) {
            sp = true;
        } else if (!strcmp(argv[i], "--handoff")) {
            ho = true;
        } else if (!strcmp(argv[i], "--atomic")) {
            at = true;
        } else if (!strcmp(argv[i], "--calls")) {
            calls = true;
        } else if (!strcmp(argv[i], "--rendezvous")) {
            rv = true;
        } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            const char *s = argv[++i];
            if (!strcmp(s, "medium"))
                g.medium = true;
            else if (strcmp(s, "small"))
                return usage();
        } else if (!strncmp(argv[i], "--size=", 7)) {
            if (!strcmp(argv[i] + 7, "medium"))
                g.medium = true;
            else if (strcmp(argv[i] + 7, "small"))
                return usage();
        } else if (!seed_s && argv[i][0] != '-') {
            seed_s = argv[i];
        } else {
            return usage();
        }
    }
    if (!seed_s || (ho && undisc)) return usage();
    char *end;
    unsigned long long seed = strtoull(seed_s, &end, 0);
    if (*end) return usage();
    /* Models whose estimated full state space is too large are redrawn (a
     * pure function of the seed still): the estimate is the product over
     * thread instances of their code lines weighted by loop iterations. */
    bool medium = g.medium;
    double limit = (medium ? 80000 : 20000) / (sp ? 3 : 1); /* --spawns: more threads */
    int best = 0;
    double best_est = 0;
    for (int attempt = 0;; attempt++) {
        /* --spawns: after 100 draws over the limit, the smallest of them
         * (without the option, the last: what every seed's model was) */
        int a = attempt < 100 ? attempt : best;
        memset(&g, 0, sizeof g);
        g.medium = medium;
        g.undisc = undisc;
        g.vol = vol;
        g.sp = sp;
        g.wt = wt;
        g.ho = ho;
        g.at = at;
        g.calls = calls;
        g.cv = cv;
        g.rv = rv;
        g.hrng = seed * 0xd1b54a32d192ed03ull + 0x4a0d0ffull;
        g.rng = (seed + (uint64_t)a * 0x632be59bd9b4e019ull) * 0x2545f4914f6cdd1dull + 0x1234567ull;
        g.srng = seed * 0x9e3779b97f4a7c15ull + 0x5eed;
        g.exrate = srnd(&g, 10) < 4 ? 0 : 10 + 5 * srnd(&g, 7);
        plan(&g);
        int hz = g.hazard ? rnd(&g, g.nbodies) : -1;
        for (int b = 0; b < g.nbodies; b++) gen_body(&g, b, b == hz);
        double est = 1;
        for (int b = 0; b < g.nbodies; b++)
            for (int k = 0; k < instances(&g, b); k++) est *= g.bodies[b].weight + 1;
        g.est = est;
        if (est <= limit || attempt == 100 || (attempt == 99 && !sp)) break;
        if (attempt == 0 || est < best_est) best = attempt, best_est = est;
        for (int b = 0; b < g.nbodies; b++) free(g.bodies[b].code.s);
    }
    print_model(&g, seed);
    for (int b = 0; b < g.nbodies; b++) free(g.bodies[b].code.s);
    return 0;
}
