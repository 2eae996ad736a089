/*
 * test_cuda_count.c - the CUDA backend on the real (static) CUDA runtime
 * where there may be no GPU and no driver: feed__device_cuda_count() must say
 * 0 there without failing, and open must refuse cleanly. Where the machine
 * shows an NVIDIA GPU (/proc/driver/nvidia/gpus/ not empty, or /dev/nvidia0)
 * the count must be > 0 instead. And linking the backend (static runtime,
 * kernel registration) must not start CUDA before the first call: libcuda
 * is not even loaded until then (meaningful where a driver exists).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "device/device.h"

static int gpu_visible(void)
{
    int n = 0;
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            n += e->d_name[0] != '.';
        closedir(d);
    }
    return n > 0 || access("/dev/nvidia0", F_OK) == 0;
}

/* Runs first, before anything in this process called CUDA. */
static void test_nothing_at_load(void **state)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) {
        print_message("skipped: no /proc/self/maps here\n");
        skip();
    }
    char line[1024];
    int mapped = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "libcuda.so"))
            mapped = 1;
    fclose(f);
    assert_false(mapped);
}

static feed_status no_wait(void *ring, uint64_t seq, int64_t t, feed__slot_view *v)
{
    return FEED_E_TIMEOUT;
}

static void no_release(void *ring, uint64_t seq)
{
}

static void test_count(void **state)
{
    const feed__device_ops *ops = feed__device_cuda();
    assert_non_null(ops); /* built with CUDA */
    assert_string_equal(ops->name, "cuda");
    int n = feed__device_cuda_count();
    assert_int_equal(feed__device_cuda_count(), n); /* asking twice is fine */
    if (gpu_visible()) {
        printf("GPU visible: feed__device_cuda_count() = %d\n", n);
        assert_true(n > 0);
        return;
    }
    printf("no GPU visible: feed__device_cuda_count() = %d\n", n);
    assert_int_equal(n, 0);
    feed__device_config cfg = {
        .batch_size = 2, .height = 4, .width = 4, .channels = 3,
        .host_dtype = FEED_DTYPE_UINT8, .host_layout = FEED_LAYOUT_HWC, .host_sample_bytes = 48,
        .dtype = FEED_DTYPE_FLOAT32, .layout = FEED_LAYOUT_CHW,
        .mean = {0.5f, 0.5f, 0.5f}, .std = {0.5f, 0.5f, 0.5f},
        .depth = 2, .ordinal = 0, .wait_ready = no_wait, .release_slot = no_release,
    };
    void *dev = (void *)1;
    char err[256] = "";
    assert_int_equal(ops->open(&cfg, &dev, err, sizeof err), FEED_E_DEVICE);
    assert_null(dev);
    printf("open: %s\n", err);
    assert_non_null(strstr(err, "cuda"));
    /* Says which is missing: here no GPU, so the driver (its library) or the device. */
    char why[160] = "";
    assert_int_equal(feed__device_cuda_probe(why, sizeof why), 0);
    printf("why: %s\n", why);
    assert_non_null(strstr(err, why));
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY);
    if (!lib) {
        assert_non_null(strstr(why, "no NVIDIA driver"));
    } else {
        dlclose(lib);
        assert_non_null(strstr(why, "driver is"));
    }
    ops->close(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_at_load),
        cmocka_unit_test(test_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
