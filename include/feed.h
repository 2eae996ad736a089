/*
 * feed.h - libfeed, a data loader that keeps GPUs busy.
 *
 * libfeed reads samples (JPEG, PNG and WebP images), decodes and augments them in a pool of
 * worker *processes*, writes the results straight into a ring of shared (and,
 * with CUDA, pinned) host buffers, and hands out batches in order: in host
 * memory, or copied to device memory on a CUDA stream of its own.
 *
 * This header is the manual. Everything here is callable from C, C++ and
 * ctypes/cffi: fixed-width integers, no varargs, no required macros, no CUDA
 * types (streams and events are passed as void *).
 *
 * A minimal loop:
 *
 *     feed_options o;
 *     feed_options_init(&o, sizeof o);
 *     feed_options_parse(&o, "source=/data/train,batch_size=256,workers=8,augment=train",
 *                        err, sizeof err);
 *     feed_loader *ld;
 *     if (feed_loader_create(&ld, &o, err, sizeof err) != FEED_OK) { puts(err); return 1; }
 *     feed_batch b = { .struct_size = sizeof b };
 *     feed_status st;
 *     while ((st = feed_loader_next(ld, &b, -1)) == FEED_OK ||
 *            st == FEED_E_INTERRUPTED) {                 // a signal handler ran: again
 *         if (st != FEED_OK)
 *             continue;
 *         train_step(b.data, b.labels, b.count);         // host memory (the default)
 *         feed_batch_release(ld, &b, NULL);
 *     }                                                  // st: FEED_END_OF_EPOCH, or an error
 *     feed_loader_destroy(ld);
 *
 * With device=cuda the batch is in device memory and its copy runs on
 * libfeed's own stream: order your work after it before touching b.data,
 * and release on the stream that used it last:
 *
 *         feed_batch_wait(ld, &b, stream);               // on the device, no host wait
 *         train_step_on(stream, b.data, b.labels_device, b.count);
 *         feed_batch_release(ld, &b, stream);
 *
 * Threads: a loader may be used from one thread at a time (the caller's
 * training thread), except feed_loader_stats(), feed_loader_bad_count() and
 * feed_loader_bad_sample(), which another thread (a monitor) may call at any
 * time between create and destroy, and feed_loader_num_samples() and
 * feed_loader_sample_info(), which any thread may call. Distinct loaders are
 * independent.
 *
 * fork(): a child's copy of a loader is not a loader (its threads are gone,
 * its workers and locks are the parent's). There next, release, wait, seek,
 * stats and bad_sample return FEED_E_INVALID with last_error naming the
 * owning process, the bad counts and trace_read 0; destroy returns at once,
 * touching nothing; the information calls (num_samples, sample_info, ...)
 * still answer. The parent is not disturbed. Create a loader in the child.
 */
#ifndef FEED_H
#define FEED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version ------------------------------------------------------------ */

#define FEED_VERSION_MAJOR 0
#define FEED_VERSION_MINOR 2
#define FEED_VERSION_PATCH 0
/* MAJOR*10000 + MINOR*100 + PATCH, as returned by feed_version(). */
#define FEED_VERSION_NUMBER \
    (FEED_VERSION_MAJOR * 10000 + FEED_VERSION_MINOR * 100 + FEED_VERSION_PATCH)

#if defined(FEED_BUILDING_LIBRARY) && defined(__GNUC__)
#define FEED_API __attribute__((visibility("default")))
#else
#define FEED_API
#endif

/* The version of the library linked at run time (FEED_VERSION_NUMBER of the
 * build). Compare with the header's to detect a mismatch. */
FEED_API uint32_t feed_version(void);
/* The same as "MAJOR.MINOR.PATCH"; a static string. */
FEED_API const char *feed_version_string(void);

/* ---- status codes --------------------------------------------------------- */

/*
 * The one list of status codes. Numbers are stable and never reused.
 * FEED_OK is 0; every error is positive. feed_strerror() gives the message,
 * feed_status_name() the name ("FEED_E_IO").
 */
#define FEED_STATUS_LIST(X)                                                        \
    X(FEED_OK, 0, "success")                                                       \
    X(FEED_END_OF_EPOCH, 1, "end of epoch: call next again for the next epoch")    \
    X(FEED_END_OF_DATA, 2, "all requested epochs have been delivered")             \
    X(FEED_E_INVALID, 3, "invalid argument or option")                             \
    X(FEED_E_NOMEM, 4, "out of memory")                                            \
    X(FEED_E_IO, 5, "I/O error")                                                   \
    X(FEED_E_DATASET, 6, "dataset error (missing, empty or malformed)")            \
    X(FEED_E_DECODE, 7, "bad sample (corrupt, truncated or unsupported image)")    \
    X(FEED_E_TOO_LARGE, 8, "sample over the size limits")                          \
    X(FEED_E_TIMEOUT, 9, "timed out")                                              \
    X(FEED_E_WORKER, 10, "worker process failure")                                 \
    X(FEED_E_RESOURCE, 11, "system resource limit (shared memory, fds, memlock, processes)") \
    X(FEED_E_DEVICE, 12, "device (CUDA) error")                                    \
    X(FEED_E_UNSUPPORTED, 13, "not supported in this build or on this machine")    \
    X(FEED_E_BUSY, 14, "too many batches held: release one before asking for the next") \
    X(FEED_E_INTERNAL, 15, "internal error (a bug: please report it)")             \
    X(FEED_E_INTERRUPTED, 16, "interrupted by a signal")

typedef enum feed_status {
#define FEED_X_ENUM(name, num, msg) name = num,
    FEED_STATUS_LIST(FEED_X_ENUM)
#undef FEED_X_ENUM
    FEED_STATUS_COUNT_
} feed_status;

/* A static message for a status; "unknown status" for other numbers. */
FEED_API const char *feed_strerror(int status);
/* A static name for a status ("FEED_E_IO"); "FEED_UNKNOWN" for other numbers. */
FEED_API const char *feed_status_name(int status);

/* ---- options ------------------------------------------------------------- */

enum {
    FEED_DTYPE_UINT8 = 0,    /* raw pixels, 0..255 */
    FEED_DTYPE_FLOAT32 = 1,  /* (x/255 - mean) / std */
    FEED_DTYPE_FLOAT16 = 2,  /* the same, IEEE half, round to nearest even */
    FEED_DTYPE_BFLOAT16 = 3  /* the same, bfloat16, round to nearest even */
};
enum { FEED_LAYOUT_HWC = 0, FEED_LAYOUT_CHW = 1 };
/* feed_batch.target_dtype */
enum { FEED_TARGET_NONE = 0, FEED_TARGET_FLOAT32 = 1, FEED_TARGET_INT64 = 2 };
enum {
    FEED_AUGMENT_NONE = 0, /* resize the whole image to height x width */
    FEED_AUGMENT_VAL = 1,  /* resize shorter side to resize_shorter, center crop */
    FEED_AUGMENT_TRAIN = 2 /* RandomResizedCrop + flip (+ rotate, jitter, grey) */
};
enum {
    FEED_BAD_REPLACE = 0, /* substitute a deterministic other sample, flag it, report it */
    FEED_BAD_FAIL = 1     /* feed_loader_next() returns the sample's error */
};
enum { FEED_READER_AUTO = 0, FEED_READER_URING = 1, FEED_READER_PREAD = 2 };
/* interpolation, aa_interpolation (since 0.2.0) */
enum { FEED_INTERP_NEAREST = 0, FEED_INTERP_BILINEAR = 1, FEED_INTERP_BICUBIC = 2 };
/* auto_augment (since 0.2.0) */
enum {
    FEED_POLICY_NONE = 0,
    FEED_POLICY_TRIVIAL = 1, /* TrivialAugmentWide */
    FEED_POLICY_RAND = 2,    /* RandAugment */
    FEED_POLICY_AUTO = 3     /* AutoAugment, ImageNet policy */
};
/* meta_missing (since 0.2.0): a sample without one of its meta_members */
enum { FEED_META_MISSING_BAD = 0, FEED_META_MISSING_EMPTY = 1 };
/* fetch_ranges (since 0.2.0) */
enum { FEED_FETCH_WHOLE = 0, FEED_FETCH_RANGES = 1 };
/* mix_mode (since 0.2.0) */
enum { FEED_MIX_BATCH = 0, FEED_MIX_PAIR = 1, FEED_MIX_ELEM = 2 };
/* jpeg_entropy (since 0.2.0): whose Huffman decoder decodes a JPEG's scans */
enum {
    FEED_JPEG_ENTROPY_AUTO = 0,    /* libfeed's where the workers' self-check passes */
    FEED_JPEG_ENTROPY_LIBFEED = 1, /* libfeed's wherever it can run */
    FEED_JPEG_ENTROPY_LIBJPEG = 2  /* libjpeg-turbo's, always */
};

#define FEED_PATH_MAX 4096

/*
 * rank / world_size = FEED_RANK_AUTO (text "auto"): taken at
 * feed_loader_create() from the launcher's environment, the first found of
 *   torchrun / torch.distributed   RANK, WORLD_SIZE (LOCAL_RANK)
 *   Open MPI                       OMPI_COMM_WORLD_RANK, _SIZE (_LOCAL_RANK)
 *   MPICH, Intel MPI (PMI)         PMI_RANK, PMI_SIZE (MPI_LOCALRANKID)
 *   MVAPICH2                       MV2_COMM_WORLD_RANK, _SIZE (_LOCAL_RANK)
 *   Slurm srun                     SLURM_PROCID, SLURM_NTASKS (SLURM_LOCALID)
 * (torchrun before Slurm: under srun torchrun, Slurm's variables count
 * nodes). None found, or a value that does not parse, fails create.
 * feed_loader_stats() says what was used. device=cuda:local picks the GPU of
 * the launcher's local rank (the only one if a single GPU is visible).
 */
#define FEED_RANK_AUTO 0xFFFFFFFFu

/*
 * Loader options. Fill with feed_options_init() (which sets every default),
 * then change fields directly or with feed_options_set()/feed_options_parse()
 * using the "key" names given in brackets. Unknown bytes past the caller's
 * struct_size take their defaults, so old callers keep working.
 * feed_loader_create() refuses (FEED_E_INVALID, the option and its allowed
 * range in err) any value the workers could not apply to every sample:
 * booleans other than 0/1, NaN or infinite floats, and mean/std whose output
 * (x/255 - mean)/std is not finite in dtype (float16: |v| <= 65504).
 */
typedef struct feed_options {
    uint32_t struct_size;   /* sizeof(feed_options) as the caller knows it */
    uint32_t version;       /* FEED_VERSION_NUMBER the caller was built with */

    /* dataset */
    /* [source] ImageFolder root (ROOT/<class>/<file>: .jpg .jpeg .jpe .png
     * .webp; others skipped and counted, see feed_loader_skipped_files), a
     * file list, a .npy array (see labels), or WebDataset tar shards, which
     * source names as
     *  - a pattern: brace ranges and lists, then shell globs, e.g.
     *    "/data/train-{000000..001023}.tar" (zero-padded like the ends),
     *    "/data/{a,b}/train-*.tar" (glob matches sorted); every match a .tar file;
     *  - one file ending in .tar;
     *  - a text file whose first line (blank lines, # comments skipped) is a
     *    single path ending in .tar: one shard a line, relative to the list's
     *    folder (also accepted as file_list, relative to a directory source).
     * A sample is a run of members with one key (the member path up to the
     * first '.' of its name): KEY.jpg/.jpeg/.png/.webp is the image, KEY.cls
     * the label as decimal text; other members are ignored. Sample ids follow
     * the shard order, then the member order. Errors name the pattern or
     * list line (no match, a missing shard, not a .tar). A malformed member
     * (bad header checksum, past the end of the shard, no label, no image,
     * a duplicate key, a label that is no integer) is reported on stderr
     * with shard path, member name and header offset and skipped; the rest
     * of the shard loads. Index memory: 16 bytes a sample, each shard's path
     * once (several labels a sample: see multi_label). Samples are read by
     * (shard, offset, length) with the same reader and read-ahead as files;
     * the epoch permutation is over samples. */
    char source[FEED_PATH_MAX];
    char file_list[FEED_PATH_MAX]; /* [file_list] "relative/path label" lines (several labels
                                      a line: multi_label); paths relative to source (or to
                                      the list's folder if source is empty); labels are
                                      integers 0..2147483647 (int32, any may be unused:
                                      index memory follows the lines, not the labels) */

    /* batching and order */
    uint32_t batch_size;  /* [batch_size] samples per batch (default 32) */
    uint32_t shuffle;     /* [shuffle] 1: a new permutation each epoch (default 1); a
                             shard-local one with shuffle_window (below) */
    uint32_t drop_last;   /* [drop_last] 1: drop a short last batch (default 0) */
    uint64_t seed;        /* [seed] root of every random choice (default 0) */
    uint32_t epochs;      /* [epochs] 0 = unlimited; else END_OF_DATA after this many */
    uint32_t start_epoch; /* [start_epoch] first epoch number (default 0) */
    uint32_t rank;        /* [rank] this process's rank (default 0), or FEED_RANK_AUTO */
    uint32_t world_size;  /* [world_size] number of ranks (default 1), or FEED_RANK_AUTO */

    /* pipeline */
    uint32_t workers;       /* [workers] worker processes (default 2) */
    uint32_t prefetch;      /* [prefetch] batch slots in the ring (default 4, >= 2) */
    uint32_t height, width; /* [height] [width] output size (default 224 x 224) */
    uint32_t augment;       /* [augment] none|val|train (default val) */
    uint32_t resize_shorter;/* [resize_shorter] val: shorter side before the center crop
                               (default 256; unused otherwise); below max(height, width)
                               the crop is padded with the fill colour */
    float scale_min, scale_max; /* [scale_min] [scale_max] RandomResizedCrop area (0.08, 1) */
    float ratio_min, ratio_max; /* [ratio_min] [ratio_max] aspect range (3/4, 4/3) */
    float flip_p;           /* [flip_p] horizontal flip probability (train default 0.5) */
    float rotate_deg;       /* [rotate_deg] random rotation in [-d, d] degrees (default 0) */
    uint32_t fill;          /* [fill] 0xRRGGBB fill for rotation corners (default 0) */
    float brightness, contrast, saturation, hue; /* [brightness] ... colour jitter (0 = off) */
    float grayscale_p;      /* [grayscale_p] probability of greyscale (default 0) */
    uint32_t exif;          /* [exif] 1: apply EXIF orientation (default 1; JPEG only: a PNG
                               eXIf chunk or WebP EXIF is not read) */
    uint32_t roi_decode;    /* [roi_decode] 1: decode only the crop, DCT-scaled (default 1;
                               a YCbCr or grey JPEG into its planes, each resized at its own
                               resolution, only the output converted to RGB; a PNG: only the
                               rows down to the crop; a WebP: the crop). 0: the whole image,
                               interleaved RGB (within 1 level of a float64 resize of it) */

    /* output */
    uint32_t dtype;         /* [dtype] uint8|float32|float16|bfloat16 (default uint8) */
    uint32_t layout;        /* [layout] hwc|chw (default hwc for uint8, chw otherwise) */
    float mean[3];          /* [mean] "r:g:b" on 0..1 scale (ImageNet's by default) */
    float std[3];           /* [std] "r:g:b" */
    char device[32];        /* [device] where batches are delivered (default host):
                               "host" (or "cpu"): host memory, read it anywhere;
                               "cuda" = "cuda:0", "cuda:N", "cuda:local" (see above): device
                               memory, ready only after feed_batch_wait() on the stream
                               that reads it (or sync=1); "auto": CUDA device 0 when one is
                               visible, else the host: look at feed_batch.device.
                               (Before 0.1.1 the default was auto.) */
    uint32_t device_prefetch; /* [device_prefetch] device buffers (default 3) */
    uint32_t sync;          /* [sync] 1: next() blocks until data is ready on device */

    /* robustness */
    uint32_t bad_policy;        /* [bad_policy] replace|fail (default replace) */
    uint32_t max_retries;       /* [max_retries] crashes/hangs before a sample is bad (2) */
    uint32_t sample_timeout_ms; /* [sample_timeout_ms] a worker stuck this long is killed
                                   (default 30000; 0 = never; else at least 100) */
    uint64_t max_pixels;        /* [max_pixels] width*height limit (default 100M) */
    uint64_t max_file_bytes;    /* [max_file_bytes] file size limit (default 256 MiB) */
    uint32_t reader;            /* [reader] auto|uring|pread (default auto) */
    char worker_path[FEED_PATH_MAX]; /* [worker_path] feed-worker executable
                                        (default: found next to libfeed, or $FEED_WORKER) */
    /* since 0.1.1 */
    uint32_t readahead;  /* [readahead] batches past the ring whose files the kernel is asked
                            to read ahead (posix_fadvise WILLNEED, from a thread of this
                            process, io_uring where allowed); 0 = off (default 4) */
    /* since 0.1.1: the bad-sample budget and reports */
    float max_bad_fraction; /* [max_bad_fraction] next() fails with FEED_E_DATASET when more than
                               this share of the last 1000 samples delivered were bad, judged
                               once those 1000 are in (or a whole epoch, when an epoch has
                               fewer samples: a small dataset over budget stops at the end of an
                               epoch) and at least 10 of them are bad, or when the first 16
                               delivered were all bad; 0 = the
                               first bad sample fails, 1 = no budget (default 0.05). A
                               seek starts over */
    uint32_t report_bad;    /* [report_bad] 1: one line per bad sample on stderr (path,
                               reason): the first 10, then at most one a second, with the
                               count of those left out (default 1) */
    char bad_log[FEED_PATH_MAX]; /* [bad_log] a file (appended to, created if need be) that gets
                                    every bad sample, one line each: epoch, sample id, batch,
                                    status name, path, reason, tab-separated (tab, newline, CR
                                    and backslash written \t \n \r \\); "" = none (default) */
    uint32_t sandbox;    /* [sandbox] 1: each worker, once set up, runs under no_new_privs and a
                            seccomp filter (reads, decodes and publishes only: no exec, no
                            sockets, no files opened for writing, no new processes; a refused
                            system call kills the worker, reported as killed by the sandbox);
                            skipped where the kernel has no seccomp. 0 = off (default 1) */
    uint32_t pad_sandbox;
    uint64_t max_worker_memory; /* [max_worker_memory] bytes one worker may allocate beyond
                            its shared mappings: an image whose decode needs more is a bad sample
                            (checked from the header), enforced also by RLIMIT_AS. 0 = no cap;
                            FEED_WORKER_MEMORY_AUTO (text "auto", the default) =
                            12 * max_pixels + max_file_bytes + 64 MiB (about 1.5 GB with the defaults) */
    /* since 0.2.0: raw arrays */
    char labels[FEED_PATH_MAX]; /* [labels] with a .npy source: a .npy of N int32 or int64 labels,
                            shape (N,), each 0..2147483647. A .npy source (known by its magic
                            bytes; one named *.npy without them is an error) is a uint8 array of shape (N, H, W, C), C = 1
                            (grey), 3 (RGB) or 4 (RGBA, alpha dropped), or (N, H, W) (grey), in C
                            order. It is never read whole: each worker reads one sample's H*W*C
                            bytes at a time. Nothing is decoded; the augmentations apply as to a
                            decoded image of W x H (val: shorter side, centre crop; train:
                            RandomResizedCrop etc.; none: resized to height x width, and with
                            augment=none at the array's own size and C = 3, the bytes are copied
                            exactly). A bad header (magic, version, dtype, rank, channels, shape
                            against the file size, Fortran order) or bad labels (dtype, count,
                            a value out of range) fail create naming the file. "" = none */
    /* since 0.2.0: the saved folder scan */
    uint32_t scan_cache; /* [scan_cache] ImageFolder sources: 1 = keep the folder scan in a file
                            (scan_cache_path) and reuse it at the next create while the folder is
                            unchanged: the same class folders, and every folder below the root
                            with the same modification time and inode (adding, removing or
                            renaming a file or folder changes its folder's; rewriting a file in
                            place changes neither its path nor its label, and keeps the scan).
                            A scan file that is stale, truncated or corrupt is ignored with a
                            line on stderr and replaced; one that cannot be written (a read-only
                            folder) is skipped with a line on stderr. Off by default: it writes
                            into the dataset's folder, which a library should not do unasked,
                            and a local scan is fast; turn it on for large folders on network
                            file systems. 0 = off (default) */
    uint32_t pad_scan_cache;
    char scan_cache_path[FEED_PATH_MAX]; /* [scan_cache_path] where the scan is kept
                            ("" = SOURCE/.libfeed-scan, a dot file the scan itself skips);
                            not inside a class folder, whose time saving it would change */
    /* since 0.2.0: the JPEG Huffman decoder */
    uint32_t jpeg_entropy; /* [jpeg_entropy] auto|libfeed|libjpeg (default auto): whose
                            Huffman decoder reads a JPEG's scans. libfeed's own (faster: its
                            share of a decode is the largest) sits inside libjpeg-turbo, in a
                            slot whose layout libjpeg-turbo does not keep stable, and is
                            bit-exact with the libjpeg-turbo it was built against; another
                            version loaded at run time (a system upgrade without a rebuild)
                            can make it decode some progressive files to other pixels, with
                            no error. libjpeg: libjpeg-turbo's own, always. libfeed:
                            libfeed's wherever it can run (create fails if this build has it
                            compiled out). auto: each worker, at start, decodes a few small
                            built-in JPEGs (sequential with restart markers, progressive
                            with and without refinement scans, one cut at a scan boundary)
                            with both and compares status, message and pixels: libfeed's if
                            they agree, else libjpeg-turbo's for the worker's life, said
                            once on stderr (the library version, what differed).
                            feed_stats.jpeg_entropy says what ran and why */
    uint32_t pad_jpeg_entropy;

    /* since 0.2.0: today's training recipes (augment=train only, but for interpolation,
       which every resize uses). Each draw is a pure function of (seed, epoch, sample id,
       repeat) or, for MixUp/CutMix, of (seed, epoch, batch, rank): the same whatever the
       worker count, after a crash and after a resume. */
    uint32_t interpolation; /* [interpolation] bilinear|bicubic (default bilinear): the resize
                            filter of every crop and resize (augment none, val and train,
                            each JPEG plane of a region decode), antialiased as torchvision's
                            antialias=True: the filter (a triangle, or Keys' cubic with
                            a = -0.5 as PIL and torchvision's tensor resize) stretched by the
                            shrink factor, weights renormalised inside the image; bicubic
                            in torchvision's order (horizontal pass, intermediate clamped and
                            rounded to 0..255, vertical pass). uint8 results against
                            torchvision.transforms.v2.functional.resize(antialias=True):
                            bilinear within 1 level, bicubic within 2 and more than 1 for
                            under 1e-4 of the values (the weights' fixed point differs, so
                            an intermediate byte can round the other way;
                            python/tests/test_torchvision_resize.py). nearest is refused */
    uint32_t auto_augment;  /* [auto_augment] none|trivialaugment|randaugment|autoaugment
                            (default none): a policy of torchvision.transforms.v2's
                            (TrivialAugmentWide, RandAugment, AutoAugment with the ImageNet
                            policy: their ops, magnitude tables and signs) on the crop at output
                            size, after flip, rotation, jitter and greyscale. Each op is
                            torchvision's functional on a uint8 tensor, in its float32
                            arithmetic (python/tests/test_torchvision_ops.py states the bounds) */
    uint32_t aa_num_ops;    /* [aa_num_ops] randaugment: ops per image (default 2, 1..16) */
    uint32_t aa_num_bins;   /* [aa_num_bins] randaugment: magnitude bins (default 31, 2..1000);
                            trivialaugment always uses 31, autoaugment 10, as torchvision */
    float aa_magnitude;     /* [aa_magnitude] randaugment: the magnitude bin (default 9,
                            0..aa_num_bins-1); with aa_inc=1 or aa_mstd>0, timm's M of
                            "rand-mM" on its 0..10 scale instead (clipped to 10) */
    float aa_mstd;          /* [aa_mstd] randaugment: timm's magnitude noise (its "mstd"): a
                            normal draw of this standard deviation added to aa_magnitude per
                            op, clipped to 0..10; over 100, uniform in [0, aa_magnitude]
                            (default 0 = none). With aa_inc=1 or aa_mstd>0 randaugment is
                            timm's: its 15 ops (Invert and SolarizeAdd, no Identity), each
                            layer applied with probability 0.5, its level functions; its ops
                            are libfeed's torchvision ones with aa_interpolation and aa_fill
                            (timm runs PIL's, bilinear or bicubic at random, with its mean as
                            the fill) */
    uint32_t aa_inc;        /* [aa_inc] randaugment: 1 = timm's "inc1" op set, whose ops grow
                            stronger with the magnitude (default 0: torchvision's) */
    uint32_t aa_interpolation; /* [aa_interpolation] nearest|bilinear: the geometric ops'
                            sampling (default nearest, torchvision's default) */
    uint32_t aa_fill;       /* [aa_fill] 0xRRGGBB: what the geometric ops uncover (default 0),
                            as torchvision's fill=[r, g, b]. torchvision's default fill=None
                            is aa_fill=0 with nearest; with bilinear it blends the pixels at the
                            edge with 0 once, where fill=[0, 0, 0] (aa_fill=0) does it twice */
    /* RandomErasing, as torchvision.transforms.v2.RandomErasing, on each sample's output after
       conversion and normalisation (where torchvision applies it), in every dtype and layout;
       augment=train only. Run by the workers on the host backend, by the conversion kernel with
       a CUDA device (the same bits); the draws (whether, the box, random values) are the
       sample's own. */
    float erase_p;          /* [erase_p] probability of erasing a box (default 0 = off) */
    float erase_scale_min, erase_scale_max; /* [erase_scale_min] [erase_scale_max] box area
                            as a share of the image, uniform (default 0.02, 0.33) */
    float erase_ratio_min, erase_ratio_max; /* [erase_ratio_min] [erase_ratio_max] box aspect
                            ratio h/w, uniform in log space (default 0.3, 3.3); sides rounded
                            half to even, up to 10 tries for a box smaller than the image in
                            both sides, else the sample is left as it is */
    float erase_value[3];   /* [erase_value] "r:g:b" the box's value in output units
                            (normalised for float dtypes, rounded to nearest even in float16
                            and bfloat16; an integer 0..255 for uint8; default 0:0:0) */
    uint32_t erase_random;  /* [erase_random] 1: each erased element a normal(0, 1) draw
                            (four uniforms summed: unit variance, within 3.46 of 0)
                            (torchvision's value='random', timm's mode='pixel'); uint8: a
                            uniform byte 0..255 instead (a normal draw means nothing in bytes);
                            0: erase_value (default) */
    /* MixUp and CutMix, per batch, with soft labels (feed_batch.soft_labels), as timm's Mixup
       with torchvision v2's MixUp/CutMix formulas. Sample i is mixed with sample count-1-i of
       its batch (timm's pairing; torchvision's rolls by one); the middle sample of an odd
       count is left as it is. Run by the parent on the batch before next() returns it, in
       place; the draws are a pure function of (seed, epoch, batch index, rank). MixUp:
       lam * own + (1 - lam) * partner, computed in float32 with lam and 1 - lam rounded to
       float32 (as torch does), rounded once to the dtype (uint8: to nearest). CutMix: the
       partner's box copied exactly, lam = 1 - box area / image area. With a CUDA device the
       conversion kernel mixes (the parent draws), with the same bits. */
    float mixup_alpha;      /* [mixup_alpha] MixUp's lam ~ Beta(alpha, alpha) (0 = off) */
    float cutmix_alpha;     /* [cutmix_alpha] CutMix's lam ~ Beta(alpha, alpha), then the box
                            as torchvision v2.CutMix: centre uniform, half sides
                            int(sqrt(1 - lam) / 2 * W) and (* H), clipped (0 = off) */
    float mix_p;            /* [mix_p] probability that a batch (pair, sample) is mixed
                            (default 1); not mixed: lam = 1 */
    float mix_switch_p;     /* [mix_switch_p] with both alphas: probability of CutMix rather
                            than MixUp (default 0.5) */
    uint32_t mix_mode;      /* [mix_mode] batch|pair|elem (default batch): one draw for the
                            batch, one per pair (i, count-1-i), one per sample, as timm's
                            Mixup; pair needs an even batch_size */
    float label_smoothing;  /* [label_smoothing] e: each label's one-hot becomes e / num_classes
                            off and 1 - e + e / num_classes on, as timm's (default 0); with it,
                            or mixing, the batch carries soft labels: lam * own row +
                            (1 - lam) * partner's row */
    uint32_t num_classes;   /* [num_classes] width of the soft labels (default 0: the
                            dataset's, feed_loader_num_classes); below the dataset's, create
                            fails naming a sample whose label does not fit */
    /* repeated augmentation, as torchvision's RASampler */
    uint32_t repeats;       /* [repeats] each sample this many times per epoch (default 1,
                            1..64). The epoch's order is n * repeats positions: the shuffled
                            order with each sample `repeats` times in a row, as RASampler
                            lays it out, split among the ranks as ever (rank r takes
                            positions r, r + W, ...; padded by wrapping, or cut with
                            drop_last), so a sample's repeats go to different ranks when
                            world_size >= repeats. Repeat j makes every draw keyed by the
                            sample (crop, flip, rotation, jitter, greyscale, policy) as
                            sample id + j * n would, so repeat 0 is the sample's own draws and
                            repeats=1 is the loader without the option, bitwise. Every position is delivered: an epoch is
                            repeats times as long (samples_per_epoch, batches_per_epoch and
                            positions all count the n * repeats order). RASampler instead
                            stops each rank after about n / world_size samples (the first
                            1 / repeats of its share: floor(n / 256) * 256 / W), so E of its
                            epochs see about as many samples as E / repeats of these */
    /* multi-label targets */
    uint32_t multi_label;   /* [multi_label] 1: a sample may carry several labels: a file-list
                            line "path 3 17 42" (or "path 3,17,42": the labels are the last
                            words that are integers or comma lists of them), a tar shard's
                            KEY.cls holding several integers separated by whitespace or
                            commas (at most 512 bytes); at most 1024 labels a sample (256 in
                            a .cls), none twice (an error naming the line; a .cls member: the
                            sample reported and skipped). An ImageFolder or a .npy array has
                            one label a sample. The batch carries soft_labels as multi-hot
                            rows (1 at each label, 0 elsewhere; label_smoothing e makes them
                            e / num_classes and 1 - e + e / num_classes, as timm's; MixUp and
                            CutMix mix the rows as one-hot ones), labels the first label of
                            each sample, and label_offsets/label_list all of them (either
                            backend). 0 (default): several labels on a line or in
                            a member are an error naming it, as a bad label is. Index memory
                            a sample: 16 bytes for a single-label file list, tar shard or
                            ImageFolder (either setting; a .npy array 4); a file list or
                            shards with several labels anywhere 16 + 4 + 4 x (labels - 1) */
    /* since 0.2.0 */
    uint32_t allow_empty_classes; /* [allow_empty_classes] ImageFolder: 1 = a class folder with no
                            image keeps its label and name with no samples (torchvision's
                            ImageFolder(allow_empty=True)); 0 (default): create fails naming
                            it, as torchvision's ImageFolder raises */
    char targets[FEED_PATH_MAX]; /* [targets] a .npy of per-sample targets (regression values,
                            embeddings): shape (N, K) or (N,) (K = 1) in C order, row i the
                            target of sample i in the dataset's order (feed_loader_sample_info;
                            a file list's line order), N feed_loader_num_samples (else create fails
                            naming both). float32 and int64 as they are, float64 rounded to
                            float32, int32 widened to int64. Read whole by the parent at create
                            (N x K x 4 or 8 bytes); the batch carries each sample's row by its
                            checked id (feed_batch.targets; a replaced sample's is its
                            substitute's). "" (default): none */
    char target_columns[1024]; /* [target_columns] "a:b:c": with a .csv or .tsv file list (a
                            header row names its columns: path, label, ...), these columns'
                            values as each sample's float32 target row (as targets gives
                            it); "" (default): none */
    char target_member[64]; /* [target_member] with tar shards: each sample's KEY.<this> member
                            (e.g. "npy": KEY.npy), a .npy of K float32/float64/int32/int64
                            values, as its target row (as targets gives it: float32 or int64);
                            a sample without one, or with another K or kind than the first's,
                            is reported and skipped. "" (default): none */
    char meta_members[128]; /* [meta_members] "json:txt": with tar shards, each sample's KEY.json
                            and KEY.txt members (at most 4 extensions, none an image's, cls
                            or target_member) delivered with the batch as bytes, unparsed
                            (feed_batch.meta: the worker reads them beside the image, the
                            parent checks every length it wrote against the index). Index
                            memory: 12 bytes a sample a member. "" (default): none */
    uint32_t meta_max_bytes; /* [meta_max_bytes] room for one sample's members together, 1 ..
                            16777216 (default 16384): a sample whose members hold more is a
                            bad sample (FEED_E_TOO_LARGE, replaced and reported). Each ring
                            slot has batch_size x this much shared memory for them */
    uint32_t meta_missing;  /* [meta_missing] a sample without one of its members: "bad"
                            (default: a bad sample, replaced and reported naming the member) or
                            "empty" (delivered with that member 0 bytes long) */
    /* since 0.2.0: remote shards (source an https://, http:// or s3:// URL pattern, or a
     * local list file of shard URLs; docs/datasets.md). The parent's helper process
     * feed-fetch downloads the shards into cache_dir (a copy whose URL, ETag,
     * Last-Modified and size match is used without a download): every one before
     * create returns, or with fetch_ahead while the loader runs; the workers read the
     * cached files as local shards and open no socket. */
    char cache_dir[FEED_PATH_MAX]; /* [cache_dir] where remote shards are kept ("" default:
                            $XDG_CACHE_HOME/libfeed/shards, else ~/.cache/libfeed/shards) */
    uint64_t cache_size;    /* [cache_size] bytes the cache may hold (default 0: no limit); the
                            least recently used shards of other datasets are evicted to make
                            room, never this loader's; if this loader's shards alone do not
                            fit, create fails naming the shard */
    uint32_t fetch_retries; /* [fetch_retries] tries after the first for a timeout, a reset, a
                            5xx or a download that is short or fails the tar check (default 4;
                            backoff 100 ms doubling, at most 5 s; each try reported on stderr) */
    uint32_t fetch_timeout_ms; /* [fetch_timeout_ms] connect timeout, and the longest a transfer
                            may stall (under 1 byte/s) before it counts as failed (default 30000) */
    uint32_t fetch_parallel; /* [fetch_parallel] shards downloaded at once (default 8, 1..64) */
    uint32_t fetch_ahead;   /* [fetch_ahead] 0 (default): every shard is in the cache before
                            create returns. N > 0: create only asks each shard's version (and
                            scans the shards for the index, each let go once read, unless the
                            index of these versions is saved in cache_dir); while the loader
                            runs, the shards of the batches from the consumer's to N past the
                            ring's slots are fetched in the order they are read, as far as
                            cache_size holds them, and let go (evictable) behind the consumer.
                            A batch goes to the workers once its shards are all cached. With
                            shuffle_window, a dataset larger than cache_size streams through it
                            (at most 1024) */
    /* since 0.2.0: a shard-local epoch order, so that a stretch of the epoch reads few shards */
    uint32_t shuffle_window; /* [shuffle_window] K > 0, tar shards only (another source: create
                            fails naming shuffle_window): epoch e's order is the shards permuted
                            by a keyed bijection drawn from (seed, e), taken K at a time as
                            windows, each window's samples permuted by a keyed bijection drawn
                            from (seed, e, window). Every sample once an epoch; the batches of
                            window w's stretch of positions (its samples' count, one run of the
                            order) hold samples of its K shards only, as WebDataset's shard
                            shuffle and Mosaic Streaming's block shuffle give. K at or past the
                            shard count: one window, a shuffle of all samples (not the one
                            K = 0 gives). Rank shares, padding, repeats, positions and seeks
                            count positions of this order as of any. With shuffle=0 the order
                            is the identity whatever K. 0 (default): the order over all
                            samples. Costs each thread that computes batches a table of 20
                            bytes a shard per epoch */
    uint32_t fetch_ranges;  /* [fetch_ranges] with fetch_ahead, what of a remote shard is
                            fetched: "whole" (default: every byte of each shard a batch
                            reads) or "ranges" (only the members of the samples this rank's
                            batches read, by ranged GETs from the saved or scanned index, into
                            a sparse DIR/....ranges file per shard; a bad sample's substitute
                            is then another sample of its batch). Under world_size W a rank
                            reads about 1/W of each shard: ranges cut its bytes to about
                            that, at a request a sample or two (fetch_parallel bounds the
                            requests at once: raise it, 32 for 20 ms a request). The server
                            must honour Range */
} feed_options;

/* max_worker_memory "auto": derived from max_pixels and max_file_bytes. */
#define FEED_WORKER_MEMORY_AUTO 0xFFFFFFFFFFFFFFFFull

/* Sets every field to its default. struct_size must be sizeof(feed_options)
 * as the caller knows it. Returns FEED_E_INVALID if opts is NULL or the
 * size is smaller than the fields of version 0.1. */
FEED_API feed_status feed_options_init(feed_options *opts, size_t struct_size);

/* Sets one option by its key name (see brackets above) from text:
 * numbers, "true"/"false", enum names ("train", "float16", "chw", ...),
 * "r:g:b" for mean/std. On error returns FEED_E_INVALID and writes a message
 * naming the key into err (if err != NULL). */
FEED_API feed_status feed_options_set(feed_options *opts, const char *key, const char *value,
                                      char *err, size_t errlen);

/* Parses "key=value,key=value,..." with feed_options_set(). Spaces before a
 * key are skipped. A value that holds a comma is double-quoted, with \" and
 * \\ for a quote and a backslash inside: source="/data/a,b". An item that is
 * not key=value (an unterminated quote, text after the closing quote, no '=')
 * is FEED_E_INVALID, saying how to quote. */
FEED_API feed_status feed_options_parse(feed_options *opts, const char *text, char *err,
                                        size_t errlen);

/* ---- the loader ------------------------------------------------------------ */

typedef struct feed_loader feed_loader;

/*
 * Creates a loader: validates the options, indexes the dataset, creates the
 * shared arena, starts the workers (and the CUDA copier), and begins filling
 * the ring. On failure returns a status, sets *out to NULL and writes a
 * message saying what is wrong and what to change into err (if not NULL).
 * Nothing is left behind on failure.
 */
FEED_API feed_status feed_loader_create(feed_loader **out, const feed_options *opts, char *err,
                                        size_t errlen);

/* Stops the workers (and reaps them), frees the arena and everything else.
 * Safe at any moment, including mid-epoch and with batches still held.
 * Accepts NULL. */
FEED_API void feed_loader_destroy(feed_loader *loader);

/* Per-sample flags in feed_batch.flags. */
enum { FEED_SAMPLE_REPLACED = 1u, FEED_SAMPLE_FLIPPED = 2u };

/*
 * One batch. The caller sets struct_size; feed_loader_next() fills the rest.
 * Everything it points to stays valid until feed_batch_release() of this
 * batch (or destroy).
 *
 * struct_size (here, in feed_stats and in feed_bad_sample) is sizeof the
 * struct as the caller's header declared it. A caller built against an older
 * header passes a smaller one: only the fields inside it are written, and
 * struct_size is left as it was. The smallest accepted is the 0.1.0 layout
 * (for feed_batch and feed_bad_sample, today's; for feed_stats, up to
 * launcher); smaller is FEED_E_INVALID. Fields added later say "since".
 */
typedef struct feed_batch {
    uint32_t struct_size;
    uint32_t count;          /* samples in this batch (the last may be short) */
    uint64_t epoch;          /* epoch number */
    uint64_t index;          /* batch number within the epoch */
    uint32_t height, width, channels; /* per sample */
    uint32_t dtype, layout;  /* FEED_DTYPE_*, FEED_LAYOUT_* */
    int32_t device;          /* -1: host memory; >= 0: CUDA device ordinal */
    void *data;              /* count samples, contiguous, sample_bytes apart */
    uint64_t sample_bytes;   /* bytes of one sample */
    const int32_t *labels;   /* host, count labels */
    void *labels_device;     /* device copy of labels (int32), NULL on host */
    const uint64_t *sample_ids; /* host, dataset index of each sample (after replacement) */
    const uint8_t *flags;    /* host, FEED_SAMPLE_* per sample */
    uint32_t bad;            /* samples replaced in this batch */
    uint32_t reserved0;
    void *ready_event;       /* cudaEvent_t that completes when data is ready; NULL on host */
    uint64_t handle;         /* opaque: names this delivery for release and wait; a new
                                value each delivery, never 0; 0 after release and on every
                                return of next() other than FEED_OK */
    /* since 0.2.0 */
    const float *soft_labels; /* host, count x num_classes float32 (row per sample): the
                                targets after label smoothing and MixUp/CutMix (each row sums
                                to 1), or multi-hot rows with multi_label; NULL unless one of
                                those is on. The loader's memory,
                                valid until release like the rest */
    void *soft_labels_device; /* their device copy (float32, the same rows) with a CUDA
                                device, ready with ready_event; NULL on host */
    uint32_t num_classes;    /* columns of soft_labels (0 when it is NULL) */
    uint32_t reserved1;
    /* since 0.2.0, with multi_label=1 (NULL otherwise): sample i's labels are
       label_list[label_offsets[i] .. label_offsets[i + 1]), in the order the dataset gives
       them, the first being labels[i]; soft_labels then holds their multi-hot rows (rows
       sum to the label count, not 1, without smoothing). The loader's memory, valid until
       release, built by the parent from its index by sample id (a replaced sample's are its
       substitute's) */
    const uint32_t *label_offsets; /* host, count + 1 offsets, label_offsets[0] = 0 */
    const int32_t *label_list;     /* host, label_offsets[count] labels */
    /* since 0.2.0, with the targets option (NULL and 0 otherwise): each sample's row of the
       targets array, by the sample id the parent checked. The loader's memory, valid until
       release */
    const void *targets;     /* host, count x target_dim of target_dtype */
    void *targets_device;    /* their device copy with a CUDA device, ready with
                                ready_event; NULL on host */
    uint32_t target_dim;     /* K */
    uint32_t target_dtype;   /* FEED_TARGET_FLOAT32 or FEED_TARGET_INT64 */
    /* since 0.2.0, with meta_members (NULL and 0 otherwise): member j (meta_members' order) of
       sample i is meta_lengths[i * meta_members + j] bytes at meta + meta_offsets[same], as the
       shard holds them (a replaced sample's are its substitute's; a missing one with
       meta_missing=empty is 0 bytes). Host memory: on the host backend the ring slot itself
       (no copy), with a CUDA device a copy; valid until release */
    const uint8_t *meta;
    const uint64_t *meta_offsets; /* count x meta_members */
    const uint32_t *meta_lengths; /* count x meta_members */
    uint32_t meta_members;
    uint32_t reserved2;
} feed_batch;

/*
 * Returns the next batch in order. timeout_ms: < 0 waits for ever, 0 polls,
 * > 0 waits at most that long (FEED_E_TIMEOUT when it expires; call again).
 * Returns FEED_END_OF_EPOCH once after each epoch's last batch (no batch is
 * returned then) and FEED_END_OF_DATA after `epochs` epochs.
 * With bad_policy=fail, a bad sample makes it return FEED_E_DECODE (or the
 * first bad sample's status) with the detail in feed_loader_last_error()
 * (every bad sample of the batch: the first, then "N bad samples in this
 * batch: ..."); calling next again delivers that batch with the samples
 * replaced, and a seek drops it.
 * FEED_E_DATASET: the data is too bad to go on (by either policy): more bad
 * samples than max_bad_fraction allows, the first 16 all bad, or a bad
 * sample none of whose 64 substitutes could be read either (never an image
 * of zeros). The batch is not delivered (feed_loader_position() still names
 * it); last_error gives the share of bad samples and the first paths and
 * reasons; every later call returns the same until a seek (which starts the
 * budget over) or destroy.
 * At most prefetch (host) or device_prefetch (CUDA) batches may be held
 * unreleased; asking for one more returns FEED_E_BUSY, and so does asking for
 * the batch that many places after one still held (it needs that one's buffer).
 * FEED_E_INTERRUPTED: while next() waited, the calling thread ran a signal
 * handler, with or without SA_RESTART (the wait is cut in timed slices,
 * which the kernel does not restart); nothing was delivered, call again.
 * Host backend only: with CUDA, next() waits on libfeed's copier thread and
 * a signal does not end the wait (pass a timeout). A timeout_ms too large
 * for the clock waits for ever.
 */
FEED_API feed_status feed_loader_next(feed_loader *loader, feed_batch *batch, int64_t timeout_ms);

/*
 * Gives a batch back. On CUDA, stream (a cudaStream_t, NULL for the legacy
 * default stream) is the stream that last used the batch's device memory:
 * an event is recorded on it, and on every stream feed_batch_wait() was
 * given for this batch, and the buffer is reused only after they all fire.
 * A stream of another device than the batch's gets an event of its own
 * device (no host wait). NULL, cudaStreamLegacy and cudaStreamPerThread are the batch's
 * device's default streams; the calling thread's current device and context
 * are left as they were (none is made).
 * On the host, stream is ignored.
 * FEED_E_INVALID, changing nothing (the held count included), for anything
 * but a batch held now: a second release, a copy of a released batch, a
 * zeroed batch or one a failed next() left.
 */
FEED_API feed_status feed_batch_release(feed_loader *loader, feed_batch *batch, void *stream);

/* Makes stream (cudaStream_t) wait on-device for the batch's ready event,
 * and remembers it: feed_batch_release() orders the buffer's reuse after it.
 * No-op on the host backend. FEED_E_INVALID for a batch not held now (as
 * feed_batch_release); FEED_E_BUSY for a ninth stream for one batch. */
FEED_API feed_status feed_batch_wait(feed_loader *loader, const feed_batch *batch, void *stream);

/* Samples of this rank per epoch, and batches per epoch (with repeats > 1,
 * of the n * repeats order: each repeat counts). */
FEED_API uint64_t feed_loader_samples_per_epoch(const feed_loader *loader);
FEED_API uint64_t feed_loader_batches_per_epoch(const feed_loader *loader);
/* Classes found (ImageFolder) or 1 + the largest label (file list, .npy
 * labels; up to 2^31, a count only: nothing is allocated per class). */
FEED_API uint32_t feed_loader_num_classes(const feed_loader *loader);
/* Name of class i (ImageFolder folder name), or NULL. */
FEED_API const char *feed_loader_class_name(const feed_loader *loader, uint32_t i);
/*
 * Files an ImageFolder scan left out (since 0.2.0): regular files in the
 * class folders whose extension is none of .jpg .jpeg .jpe .png .webp (any
 * case). Dot files and files directly under the root are not counted; a
 * file list takes every line, whatever its extension. The format of a file
 * taken is judged from its bytes, not its name (a PNG called x.jpg decodes
 * as a PNG; a GIF called x.jpg is a bad sample whose report names GIF).
 * When some were skipped, create also says so on stderr, with the count and
 * the first names (unless report_bad=0). If first is not NULL, *first is
 * set to the first few names, relative to the root and ", "-separated ("" if
 * none), valid as long as the loader. Returns the count (0 for NULL).
 */
FEED_API uint64_t feed_loader_skipped_files(const feed_loader *loader, const char **first);

/*
 * Since 0.2.0. Tar shard members that could not be indexed and were left
 * out (a bad header checksum, a sample without its label, a second image
 * for a key, a label that is no integer 0..2^31-1, a member past what the
 * index holds); create also reports each (the first 100) on stderr as
 * "libfeed: dataset: SHARD: member 'NAME' at offset N: what". If first is
 * not NULL, *first is set to the first such report (without the prefix; ""
 * if none), valid as long as the loader. Returns the count (0 for other
 * sources and for NULL).
 */
FEED_API uint64_t feed_loader_shard_problems(const feed_loader *loader, const char **first);

/* Since 0.2.0. Samples in the dataset (all ranks together): sample ids are
 * 0 .. this - 1, in the index's order (ImageFolder: classes in name order,
 * the files of each in path order, as torchvision's ImageFolder.samples). */
FEED_API uint64_t feed_loader_num_samples(const feed_loader *loader);
/*
 * Since 0.2.0. Where sample id comes from: its file's path into path (a
 * NUL-terminated string of at most pathlen bytes; ImageFolder and file
 * lists: the absolute path, or the list's path as written when it is
 * absolute; a .npy source: "ARRAY[i]", the array file's absolute path and
 * the row; a tar shard member: "SHARD.tar:KEY", the shard's path and the
 * sample's WebDataset key, as bad-sample reports name it; where its bytes
 * are: feed_loader_sample_range) and its label into *label. Either pointer may be NULL.
 * FEED_E_INVALID for an id past the dataset or a path longer than pathlen
 * (2 * FEED_PATH_MAX + 32 bytes always suffice); path is "" then.
 * Any thread may call it (the index does not change after create).
 */
FEED_API feed_status feed_loader_sample_info(const feed_loader *loader, uint64_t id, char *path, size_t pathlen,
                                             int32_t *label);
/*
 * Since 0.2.0. Which bytes of which file sample id is read from: the file's
 * absolute path into file (at most filelen bytes, NUL-terminated; may be
 * NULL), the first byte's offset into *offset and the byte count into
 * *length. A tar shard member: its data in the shard; a .npy row: the row's
 * bytes in the array; a whole file (ImageFolder, file list): offset 0 and
 * *length = UINT64_MAX (to its end, whatever its size when a worker reads
 * it). FEED_E_INVALID for an id past the dataset or a path longer than
 * filelen (file is "" then). Any thread may call it.
 */
FEED_API feed_status feed_loader_sample_range(const feed_loader *loader, uint64_t id, char *file, size_t filelen,
                                              uint64_t *offset, uint64_t *length);

/*
 * Position of the next batch next() will return: (epoch, batch index).
 * Saving it and passing it to feed_loader_seek() in a new loader with the same
 * options resumes exactly: the same batches, bitwise. In an epoch resumed
 * with feed_loader_seek_samples() at a position that is not a multiple of
 * batch_size * world_size, batch is consumed / (batch_size * world_size) (see
 * below), and only feed_loader_position_samples() is exact.
 */
FEED_API feed_status feed_loader_position(const feed_loader *loader, uint64_t *epoch,
                                          uint64_t *batch);
/* Restarts delivery at (epoch, batch): feed_loader_seek_samples(l, epoch,
 * batch * batch_size * world_size). All held batches must be released.
 * feed_loader_seek(l, e, 0) starts epoch e (DistributedSampler's set_epoch(e)). FEED_E_INVALID if batch is not
 * below feed_loader_batches_per_epoch(). */
FEED_API feed_status feed_loader_seek(feed_loader *loader, uint64_t epoch, uint64_t batch);

/*
 * Positions that survive a change of world size or batch size (since 0.2.0).
 *
 * An epoch's order is one sequence of the dataset's n samples (n * repeats
 * positions with repeats > 1, see feed_options.repeats), the same on
 * every rank; all ranks deliver their batches in step, so after k batches of
 * every rank the first consumed = k * batch_size * world_size positions of
 * the order are taken (rank r has positions r, r + W, r + 2W, ...). The pair
 * (epoch, consumed) names the point independently of the world size, the
 * batch size and the worker count.
 *
 * feed_loader_seek_samples(l, e, c) makes the rest of epoch e, positions
 * [c, n * repeats) of its order, this loader's epoch: it is split among the ranks as a
 * whole epoch is (rank r takes positions c + r, c + r + W, ... of the new
 * world size W), padded to a multiple of W by wrapping to the order's first
 * positions (repeats, as a whole epoch's padding is), or cut to whole batches
 * of every rank with drop_last (those samples are dropped, as a whole
 * epoch's tail is). So within the epoch nothing is delivered twice and
 * nothing is skipped but for that padding or that cut. Later epochs are whole.
 * Seeking to the (epoch, consumed) that feed_loader_position_samples() gave at
 * the same world size and batch size gives the same batches, bitwise, as
 * feed_loader_seek() to its (epoch, batch). When the rest makes no batch (drop_last), next()
 * returns FEED_END_OF_EPOCH, then epoch e + 1.
 *
 * Batches of such an epoch are numbered (feed_batch.index, position's batch)
 * by the strides before them: consumed / (batch_size * world_size).
 *
 * What a position cannot carry across loaders: the order must be the same,
 * so seed, shuffle, shuffle_window, repeats and the dataset (its size,
 * feed_loader_dataset_size()) must match the run that saved it (the library
 * cannot tell; the Python binding's load_state_dict checks them). All ranks of the saved run must
 * have delivered the same number of batches (they do when they train in
 * step); any rank's position then serves every new rank.
 */
/* (epoch, consumed) of the next batch next() will return. */
FEED_API feed_status feed_loader_position_samples(const feed_loader *loader, uint64_t *epoch,
                                                  uint64_t *consumed);
/* Restarts delivery at position consumed of epoch's order (see above). All
 * held batches must be released (FEED_E_BUSY). FEED_E_INVALID if consumed is
 * not below feed_loader_dataset_size() times repeats. */
FEED_API feed_status feed_loader_seek_samples(feed_loader *loader, uint64_t epoch,
                                              uint64_t consumed);
/* Samples in the dataset (n, all ranks together; since 0.2.0). */
FEED_API uint64_t feed_loader_dataset_size(const feed_loader *loader);

/* The detail of the last error of this loader ("train/cat/x.jpg: Premature end
 * of JPEG file"), or "" if none. Valid until the next call on the loader. */
FEED_API const char *feed_loader_last_error(const feed_loader *loader);

/* A report of one bad sample. The caller sets struct_size. */
typedef struct feed_bad_sample {
    uint32_t struct_size; /* sizeof(feed_bad_sample) as the caller knows it */
    uint32_t reserved0;
    uint64_t sample_id;  /* dataset index */
    uint64_t epoch;
    uint64_t batch;      /* batch index in the epoch */
    int32_t status;      /* FEED_E_DECODE, FEED_E_IO, FEED_E_TOO_LARGE, FEED_E_WORKER... */
    int32_t sys_errno;   /* errno for I/O errors, else 0 */
    char path[FEED_PATH_MAX];
    char message[256];   /* decoder message or strerror */
} feed_bad_sample;

/* Number of bad-sample reports made since create: one per bad sample and
 * epoch (a batch delivered again after a seek within its epoch is not
 * reported twice). Only the most recent FEED_BAD_KEEP reports are kept in
 * memory; bad_log=PATH writes every one to a file. */
#define FEED_BAD_KEEP 1024
FEED_API uint64_t feed_loader_bad_count(const feed_loader *loader);
/* Reports made for epoch (counts are kept for the last 1024 epochs met:
 * 0 for older ones). */
FEED_API uint64_t feed_loader_bad_count_epoch(const feed_loader *loader, uint64_t epoch);
/* Copies report i (0 = the first ever made) into out (set out->struct_size
 * first; see feed_batch on sizes). Reports i with bad_count - FEED_BAD_KEEP
 * <= i < bad_count are kept; FEED_E_INVALID for others or if struct_size is
 * smaller than the 0.1.0 layout. */
FEED_API feed_status feed_loader_bad_sample(const feed_loader *loader, uint64_t i,
                                            feed_bad_sample *out);

/* ---- statistics ---------------------------------------------------------------- */

typedef struct feed_stats {
    uint32_t struct_size;
    uint32_t workers;           /* worker processes configured */
    uint64_t batches_delivered;
    uint64_t samples_delivered;
    uint64_t samples_bad;        /* bad samples met (replaced or failed) */
    uint64_t worker_restarts;    /* workers replaced after a crash or hang */
    uint64_t worker_hangs;       /* of those, killed for exceeding sample_timeout_ms */
    uint64_t samples_redone;     /* samples claimed by a dead worker and done again */
    /* sums over all samples, nanoseconds, measured in the workers */
    uint64_t read_ns, decode_ns, augment_ns, convert_ns;
    uint64_t read_bytes;
    /* consumer side */
    uint64_t next_wait_ns;       /* total time spent blocked in next() */
    uint64_t copy_ns;            /* device backend: host->device copy time (events) */
    uint64_t h2d_bytes;
    uint32_t ring_slots;         /* prefetch */
    uint32_t ring_ready;         /* slots filled and waiting now */
    char backend[16];            /* "host" or "cuda:N" */
    char reader[16];             /* what the running workers set up at start: "io_uring",
                                    "pread", "mixed", or "none" (no worker running) */
    char pinned[16];             /* "registered", "bounce", "none" */
    uint32_t rank, world_size;   /* this loader's share (after rank/world_size=auto) */
    char launcher[16];           /* where auto ranks came from: "torchrun", "openmpi",
                                    "pmi", "mvapich", "slurm"; "" if given */
    /* since 0.1.1 */
    uint64_t readahead_files;    /* files the read-ahead thread advised */
    char readahead[16];          /* "io_uring", "sync" or "off" */
    /* since 0.2.0 */
    char jpeg_entropy[16];       /* the running workers' JPEG Huffman decoder (option
                                    jpeg_entropy): "libfeed", "libjpeg", "mixed", or "none" (no
                                    worker running, or none has finished its start) */
    char jpeg_entropy_reason[32]; /* why: "option" (jpeg_entropy=libfeed or libjpeg), "self-check
                                    passed", "self-check failed" (auto: libjpeg's; stderr said
                                    what differed), "compiled out" (auto: this build has no
                                    libfeed decoder), "mixed" (the workers differ), or "" (none) */
} feed_stats;

/* Fills stats (set stats->struct_size first; see feed_batch on sizes).
 * FEED_E_INVALID if struct_size is smaller than the 0.1.0 layout. */
FEED_API feed_status feed_loader_stats(const feed_loader *loader, feed_stats *stats);

/* ---- per-sample timeline --------------------------------------------------------- */

/*
 * What one worker did with one sample, for timelines (feedbench --trace).
 * Every worker records one event per sample into a small ring in the shared
 * arena (always on: a few stores per sample); the loader's thread drains
 * them with feed_loader_trace_read(). Times are CLOCK_MONOTONIC nanoseconds,
 * the same clock as clock_gettime(CLOCK_MONOTONIC) in the caller. The stages
 * ran back to back from start_ns: read, decode, augment, convert.
 */
typedef struct feed_trace_event {
    uint64_t start_ns;   /* the worker claimed the sample */
    uint64_t sample_id;  /* dataset index decoded (a substitute's, if replaced) */
    uint64_t epoch;
    uint64_t batch;      /* batch index within the epoch */
    uint32_t wait_ns;    /* idle time (no sample to claim) just before start_ns */
    uint32_t read_ns, decode_ns, augment_ns, convert_ns;
    uint32_t worker;     /* worker slot, 0 .. workers-1 (a replacement keeps the slot) */
    uint32_t flags;      /* FEED_SAMPLE_* */
    uint32_t reserved;
} feed_trace_event;

/*
 * Copies up to max events not read before into out (each worker's in
 * order; workers one after another). *lost (if not NULL) gets the number of
 * events overwritten before they could be read (a worker's ring holds
 * FEED_TRACE_RING events, the oldest of them possibly being overwritten: read
 * at least once per FEED_TRACE_RING - 1 samples per worker).
 * Returns the number of events copied. Call from the loader's thread.
 */
#define FEED_TRACE_RING 2048
FEED_API uint64_t feed_loader_trace_read(feed_loader *loader, feed_trace_event *out, uint64_t max,
                                         uint64_t *lost);

/* ---- DLPack deleters for bindings (since 0.2.0) ---------------------------------- */

/*
 * For a binding that exports batch memory with DLPack (the Python package
 * does) and cannot run its own code whenever a consumer frees a tensor: a
 * consumer (torch, cupy, jax) calls the deleter from C, on any thread, and in
 * Python also while an exception is being raised, when a deleter written in
 * Python loses that exception. These deleters run none of the binding's code:
 *
 *   ctx = feed_dlpack_ctx_new(key);          // key: the binding's, e.g. an address
 *   managed->manager_ctx = ctx;
 *   managed->deleter = feed_dlpack_deleter;  // DLManagedTensor; or
 *                                            // feed_dlpack_deleter_versioned
 *   capsule destructor: feed_dlpack_capsule_destructor (after feed_dlpack_set_capsule_api)
 *
 * A deleter queues ctx's key and, once until the next collect, calls
 * schedule(collect, NULL) as registered with feed_dlpack_set_notify (Python:
 * Py_AddPendingCall, callable from any thread without the GIL). The binding's
 * collect, and its own calls, take the keys with feed_dlpack_collect and let
 * go of what they guarded. ctx is freed by feed_dlpack_collect (or by
 * feed_dlpack_ctx_free for one never handed to a consumer). Lock-free, no
 * allocation in a deleter; the key of a deleter called twice before it is
 * collected is queued once (after the collect, ctx is freed: a consumer that
 * calls a deleter again then uses freed memory).
 */
typedef struct feed_dlpack_ctx feed_dlpack_ctx;
typedef int (*feed_dlpack_collect_fn)(void *arg);
typedef int (*feed_dlpack_schedule_fn)(feed_dlpack_collect_fn collect, void *arg); /* 0: scheduled */
typedef int (*feed_capsule_valid_fn)(void *capsule, const char *name);    /* PyCapsule_IsValid */
typedef void *(*feed_capsule_pointer_fn)(void *capsule, const char *name); /* PyCapsule_GetPointer */

FEED_API feed_dlpack_ctx *feed_dlpack_ctx_new(uint64_t key); /* NULL: out of memory */
FEED_API void feed_dlpack_ctx_free(feed_dlpack_ctx *ctx);
FEED_API void feed_dlpack_deleter(void *managed);           /* DLManagedTensor * */
FEED_API void feed_dlpack_deleter_versioned(void *managed); /* DLManagedTensorVersioned * */
/* Up to max queued keys into keys; returns how many (call again while == max). */
FEED_API size_t feed_dlpack_collect(uint64_t *keys, size_t max);
/* schedule NULL: deleters only queue (also what to set before the binding's runtime ends). */
FEED_API void feed_dlpack_set_notify(feed_dlpack_schedule_fn schedule, feed_dlpack_collect_fn collect);
/* A capsule still named "dltensor" or "dltensor_versioned" when it is destroyed
 * was never consumed: feed_dlpack_deleter (or _versioned) is called on the
 * tensor in it, so its manager_ctx must be a feed_dlpack_ctx. Needs the two
 * functions. */
FEED_API void feed_dlpack_set_capsule_api(feed_capsule_valid_fn is_valid, feed_capsule_pointer_fn get_pointer);
FEED_API void feed_dlpack_capsule_destructor(void *capsule);

#ifdef __cplusplus
}
#endif
#endif /* FEED_H */
