"""mutants.py - deliberate bugs the test suite must catch (scripts/mutants runs them).

Each mutant replaces one exact piece of a source file (it must occur exactly once:
a mutant whose text is gone from the code is reported stale, not skipped) and names
the ctest tests that must then fail, with an optional cmocka filter
(FEED_TEST_FILTER, read by the slow test programs) to run only the relevant cases.
A mutant nobody catches means a claim the suite does not check.
"""

MUTANTS = [
    {
        "name": "ring-header-guard-off",
        "why": "the parent no longer puts back a slot header a worker wrote over (count, seq, ...)",
        "file": "src/arena/ring.c",
        "old": "    if (phase != FEED_SLOT_FILLING)\n        return 0;\n    int now = 0;",
        "new": "    if (phase != FEED_SLOT_FILLING || 1)\n        return 0;\n    int now = 0;",
        "tests": ["test_fault_hostile"],
        "filter": "test_slot_header_boundaries",
    },
    {
        "name": "substitute-ignores-epoch",
        "why": "a bad sample gets the same stand-in every epoch",
        "file": "src/arena/protocol.h",
        "old": "    feed__rng_init(&r, seed, epoch, id, FEED_RNG_REPLACE);",
        "new": "    feed__rng_init(&r, seed, 0 * epoch, id, FEED_RNG_REPLACE);",
        "tests": ["test_substitute"],
    },
    {
        "name": "index-unsealed",
        "why": "the dataset index memfd is shared without its seals",
        "file": "src/dataset/index.c",
        "old": "    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);",
        "new": "    (void)fd;",
        "tests": ["test_fault_hostile"],
        "filter": "test_index_sealed",
    },
    {
        "name": "sandbox-allows-clone",
        "why": "a sandboxed worker may make new processes",
        "file": "src/worker/sandbox.c",
        "old": "    ALLOW(read, 0);\n",
        "new": "    ALLOW(read, 0);\n    ALLOW(clone, 0);\n    ALLOW(clone3, 0);\n    ALLOW(wait4, 0);\n",
        "tests": ["test_sandbox"],
        "filter": "test_no_fork",
    },
    {
        "name": "claim-skips-equal-seq",
        "why": "workers skip a slot whose header seq another slot also shows",
        "file": "src/arena/ring.c",
        "old": "            if (have_last && (seq < last || (seq == last && i <= last_i)))",
        "new": "            if (have_last && seq <= last + 0 * last_i)",
        "tests": ["test_ring"],
        "filter": "test_claim_visits_equal_seqs",
    },
    {
        "name": "posterize-one-bit-less",
        "why": "Posterize keeps one bit fewer than torchvision",
        "file": "src/pixels/augops.c",
        "old": "(uint8_t)(0xff << (8 - (bits < 0 ? 0 : bits)))",
        "new": "(uint8_t)(0xff << (9 - (bits < 0 ? 0 : bits)))",
        "tests": ["test_policy"],
    },
    {
        "name": "bicubic-a-075",
        "why": "the bicubic filter uses a = -0.75 (OpenCV's) instead of torchvision's -0.5",
        "file": "src/pixels/resize_axis.c",
        "old": "    const double a = -0.5;",
        "new": "    const double a = -0.75;",
        "tests": ["test_resize_bicubic"],
    },
    {
        "name": "erase-draws-ignore-sample",
        "why": "every sample of an epoch gets the same erasing box",
        "file": "src/pixels/erase.c",
        "old": "    feed__rng_init(&r, seed, epoch, id, FEED_RNG_ERASE);",
        "new": "    feed__rng_init(&r, seed, epoch, 0 * id, FEED_RNG_ERASE);",
        "tests": ["test_erase"],
    },
    {
        "name": "soft-labels-ignore-lambda",
        "why": "mixed samples keep their own one-hot label",
        "file": "src/loader/mix.c",
        "old": "            row[la] = (float)(lam * on + (1.0 - lam) * off);",
        "new": "            row[la] = (float)(1.0 * on + (0.0 * lam) * off);",
        "tests": ["test_mix"],
    },
    {
        "name": "repeats-share-draws",
        "why": "the repeats of a sample get the same crop, flip and policy",
        "file": "src/worker/loop.c",
        "old": "    c->draw_off = (uint64_t)r->repeat * c->h->dataset_size;",
        "new": "    c->draw_off = 0 * (uint64_t)r->repeat * c->h->dataset_size;",
        "tests": ["test_repeats"],
    },
    {
        "name": "fork-child-destroys",
        "why": "a fork's child destroying its copy of a loader stops the parent's workers (and hangs)",
        "file": "src/loader/create.c",
        "old": "    if (!L || feed__loader_forked(L)) /* a fork's child: nothing here is its to stop or free */",
        "new": "    if (!L || (feed__loader_forked(L) && 0))",
        "tests": ["test_loader"],
        "filter": "test_fork_child_is_inert",
    },
]
