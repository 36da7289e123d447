#include <stdlib.h>
#include <string.h>
#include <stdio.h>
static void *keep[1000];
__attribute__((noinline)) static void *make_buf(size_t n) { void *p = malloc(n); memset(p, 1, n); return p; }
__attribute__((noinline)) static void temp_work(int i) { char *t = make_buf(64 + i); t[0] = 2; free(t); }
__attribute__((noinline)) static void leak_some(int i) { keep[i % 1000] = make_buf(1024); }
__attribute__((noinline)) static void peak_phase(void) { void *big[50]; for (int i = 0; i < 50; i++) big[i] = malloc(100000); for (int i = 0; i < 50; i++) free(big[i]); }
int main(void) { for (int i = 0; i < 3000; i++) temp_work(i); for (int i = 0; i < 200; i++) leak_some(i); peak_phase(); char *s = strdup("hello"); printf("%s\n", s); free(s); return 0; }
