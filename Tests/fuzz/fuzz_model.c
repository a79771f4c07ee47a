/*
 * fuzz_model.c - libFuzzer harness: the model-based differential tester
 * (Tests/common/model_oracle.h, Tests/README.md) with libFuzzer choosing the
 * cases. The input's bytes are the generator's choices (a pipeline of
 * operators over pipes, subjects and synchronous sources, and a script);
 * the case runs through the C API and through the reference model, whose
 * outcome is the oracle: the same events at the same steps, the same live
 * subscriptions and subscriptions made per subject after each step, and
 * after the final dispose the observer and every callback context released
 * exactly once and no library object left. A disagreement is shrunk, printed
 * (as a regression test for Tests/C/test_model.c) and aborts.
 *
 * Cases that hit an open library bug (SK_KNOWN_BUG_* in model_oracle.h) are
 * not failures. Each input also checks that its case prints as text that
 * reads back as the same case.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model_oracle.h"

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "fuzz_model: " __VA_ARGS__);                           \
        fprintf(stderr, "\n");                                                 \
        abort();                                                               \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static mcase fuzz_case;
static mcase fuzz_parsed;

/* For mcase_shrink: another failure, not one of a known bug. */
static bool mcase_fails(const mcase *c, void *arg) {
    (void)arg;
    return mcase_check(c, M_OPEN_BUGS, NULL) == MV_FAIL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mchooser chooser;
    mtext report = {NULL, 0, 0};
    char *pipeline, *script, *pipeline2, *script2;
    mverdict verdict;

    memset(&chooser, 0, sizeof chooser);
    chooser.bytes = true;
    chooser.data = data;
    chooser.size = size;
    mcase_generate(&fuzz_case, &chooser);

    mcase_print(&fuzz_case, &pipeline, &script);
    if (!mcase_parse(&fuzz_parsed, pipeline, script)) {
        FAIL("the case does not read back: %s / %s", pipeline, script);
    }
    mcase_print(&fuzz_parsed, &pipeline2, &script2);
    if (strcmp(pipeline, pipeline2) != 0 || strcmp(script, script2) != 0) {
        FAIL("the case reads back as another: %s / %s, then %s / %s", pipeline, script, pipeline2, script2);
    }
    free(pipeline2);
    free(script2);

    verdict = mcase_check(&fuzz_case, M_OPEN_BUGS, &report);
    if (verdict == MV_FAIL) {
        mcase shrunk = fuzz_case;
        mtext shrunk_report = {NULL, 0, 0};
        char *shrunk_pipeline, *shrunk_script;
        mcase_shrink(&shrunk, mcase_fails, NULL);
        mcase_check(&shrunk, M_OPEN_BUGS, &shrunk_report);
        mcase_print(&shrunk, &shrunk_pipeline, &shrunk_script);
        FAIL("the library disagrees with the model.\nCase: %s\n  script: %s\n%sShrunk: %s\n  script: %s\n%s"
             "Regression test for Tests/C/test_model.c:\n"
             "Test(model, shrunk_from_fuzzing, .timeout = SK_TEST_TIMEOUT) {\n"
             "    expect_agreement(\"%s\",\n                     \"%s\");\n}",
             pipeline, script, report.s != NULL ? report.s : "", shrunk_pipeline, shrunk_script,
             shrunk_report.s != NULL ? shrunk_report.s : "", shrunk_pipeline, shrunk_script);
    }
    mt_free(&report);
    free(pipeline);
    free(script);
    return 0;
}
