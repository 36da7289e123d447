#include <math.h>
#include <stdlib.h>
volatile double s;
__attribute__((noinline)) void a(int n){for(int i=0;i<n;i++) s+=sin(i);}
__attribute__((noinline)) void b(int n){for(int i=0;i<n;i++) s+=sqrt(i);}
int main(int c,char**v){int k=atoi(v[1]); for(int r=0;r<40;r++){a(200000*k); b(400000);} return 0;}
