/*
 * test_fault_output.c - a worker's stderr reaches the host's only through
 * the parent: each line prefixed "libfeed: worker N: ", every byte outside
 * printable ASCII escaped as \xNN, a long line cut, and a flood limited to a
 * burst then a few lines a second, the rest counted in "N lines dropped"
 * notes; every line is either shown or counted, once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/internal.h"
#include "faultutil.h"

#define NIMG 8
#define FLOOD 5000

static int setup(void **state)
{
    (void)state;
    fu_setup_data("fout", NIMG, 2);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fu_teardown_data();
    return 0;
}

static void test_worker_stderr_escaped_and_limited(void **state)
{
    (void)state;
    static fu_run got;
    char path[4200], fault[4400];
    snprintf(path, sizeof path, "%s/stderr", fu_marks);
    snprintf(fault, sizeof fault, "spew1:%s:%s/s1", fu_name(3), fu_marks);
    int saved = tu_stderr_to(path);
    assert_true(saved >= 0);
    uint64_t t0 = feed__now_ns();
    feed_loader *L = fu_make("workers=1", fault);
    fu_collect(L, 1, &got, NULL, NULL);
    fu_destroy(L); /* the workers are gone and all they wrote is said */
    double secs = (double)(feed__now_ns() - t0) * 1e-9;
    tu_stderr_back(saved);
    fu_assert_exactly_once(&got);

    size_t len;
    uint8_t *text = fu_read(path, &len);
    char *s = malloc(len + 1);
    memcpy(s, text, len);
    s[len] = 0;
    free(text);
    for (size_t k = 0; k < len; k++) /* nothing of the terminal's but newlines */
        if (s[k] != '\n' && (s[k] < 0x20 || s[k] >= 0x7f))
            fail_msg("byte 0x%02x at %zu of the host's stderr", (unsigned char)s[k], k);
    assert_non_null(strstr(s, "libfeed: worker 0: \\x1b[31mred\\x1b[0m \\x07bell \\x1b]0;title\\x07 end\n"));
    assert_non_null(strstr(s, "libfeed: worker 0: xxxxxxxx"));
    assert_non_null(strstr(s, "x [line cut]\n"));
    /* every flood line shown or counted, once; at most the burst (20, less
     * the two lines before) and 5 a second after it shown */
    uint64_t shown = 0, dropped = 0, notes = 0;
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned long long n;
        if (!strncmp(line, "libfeed: worker 0: flood ", 25))
            shown++;
        else if (sscanf(line, "libfeed: worker 0: %llu line", &n) == 1 && strstr(line, " dropped (more than 5 a second)"))
            dropped += n, notes++;
        else if (strncmp(line, "libfeed: ", 9))
            fail_msg("a line not the parent's: '%.200s'", line);
    }
    free(s);
    print_message("%llu flood lines shown, %llu dropped (%llu notes) in %.2f s\n", (unsigned long long)shown,
                  (unsigned long long)dropped, (unsigned long long)notes, secs);
    assert_int_equal(shown + dropped, FLOOD);
    assert_true(notes >= 1);
    assert_true(shown >= 18);
    assert_true((double)shown <= 18 + 5 * secs + 1);
    char p[4200];
    snprintf(p, sizeof p, "%s/s1", fu_marks);
    assert_int_equal(unlink(p), 0); /* the fault fired */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worker_stderr_escaped_and_limited),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
