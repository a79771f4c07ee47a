/*
 * fuzz_model.c - libFuzzer harness: the model-based differential tester
 * with libFuzzer choosing the cases. Its work is Swift, the same model as
 * the Swift tests' (Tests/SignalKitModel): each input goes to
 * sk__model_fuzz_one (Tests/fuzz/SignalKitModelFuzz/FuzzModel.swift, in
 * libsignalkit-model-fuzz.so, mk/fuzz.mk), which decodes it as a case, runs
 * it through the C API and the reference model, and on a disagreement
 * prints the shrunk case and both outcomes and aborts.
 */
#include <stddef.h>
#include <stdint.h>

/* Returns 0, or -1 for an input that makes no valid case (libFuzzer keeps
 * it out of the corpus). */
int sk__model_fuzz_one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return sk__model_fuzz_one(data, size);
}
