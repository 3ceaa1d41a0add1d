/* Built by tests/adversarial/test_manifest_authority.py into preload.so, named by the
 * escapee's manifest ([env] LD_PRELOAD = "./preload.so"). Its constructor runs in every
 * program the variable reaches: it writes the program's uid and what it read of the
 * league's secret to $MUS_ESCAPE_PROOF, a host path a sandboxed bot cannot see. If the
 * file appears, the bot author's code ran outside the sandbox. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void escape(void) {
    const char *proof = getenv("MUS_ESCAPE_PROOF");
    const char *secret = getenv("MUS_ESCAPE_SECRET");
    if (!proof) return;
    FILE *out = fopen(proof, "a");
    if (!out) return;
    char buf[65] = {0};
    FILE *in = secret ? fopen(secret, "r") : NULL;
    if (in) { fread(buf, 1, 64, in); fclose(in); }
    fprintf(out, "uid=%d euid=%d exe-pid=%d secret=%s\n", (int)getuid(), (int)geteuid(), (int)getpid(),
            in ? "read" : "none");
    fclose(out);
}
