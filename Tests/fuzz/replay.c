/*
 * replay.c - runs a libFuzzer harness's LLVMFuzzerTestOneInput over files,
 * without libFuzzer: one plain process that valgrind can trace (make
 * test-valgrind runs the corpora and regressions this way against the
 * release libraries).
 *
 * Usage: replay FILE-OR-DIRECTORY...  (a directory: each regular file in it,
 * in name order). Prints how many inputs ran; a harness that finds a
 * violation aborts, as under libFuzzer.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *file = fopen(path, "rb");
    uint8_t *data;
    long size;
    if (file == NULL || fseek(file, 0, SEEK_END) != 0 || (size = ftell(file)) < 0 || fseek(file, 0, SEEK_SET) != 0) {
        perror(path);
        if (file != NULL) {
            fclose(file);
        }
        return 1;
    }
    /* One byte more than the input: malloc(0) may return NULL. */
    data = malloc((size_t)size + 1);
    if (data == NULL || fread(data, 1, (size_t)size, file) != (size_t)size) {
        perror(path);
        free(data);
        fclose(file);
        return 1;
    }
    fclose(file);
    LLVMFuzzerTestOneInput(data, (size_t)size);
    free(data);
    return 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of `dir` in name order; adds them to *count. */
static int run_directory(const char *dir, long *count) {
    DIR *d = opendir(dir);
    struct dirent *entry;
    char **names = NULL;
    size_t n = 0, capacity = 0, i;
    int failed = 0;
    if (d == NULL) {
        perror(dir);
        return 1;
    }
    while ((entry = readdir(d)) != NULL) {
        struct stat st;
        size_t length = strlen(dir) + strlen(entry->d_name) + 2;
        char *path = malloc(length);
        if (path == NULL) {
            failed = 1;
            break;
        }
        snprintf(path, length, "%s/%s", dir, entry->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        if (n == capacity) {
            char **grown = realloc(names, (capacity = capacity ? 2 * capacity : 64) * sizeof *names);
            if (grown == NULL) {
                free(path);
                failed = 1;
                break;
            }
            names = grown;
        }
        names[n++] = path;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (i = 0; i < n; i++) {
        if (!failed) {
            failed = run_file(names[i]);
            *count += 1;
        }
        free(names[i]);
    }
    free(names);
    return failed;
}

int main(int argc, char **argv) {
    long count = 0;
    int i;
    for (i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        if (S_ISDIR(st.st_mode) ? run_directory(argv[i], &count) : (count++, run_file(argv[i]))) {
            return 1;
        }
    }
    printf("%s: %ld inputs replayed\n", argv[0], count);
    return 0;
}
