#include <thread>
#include <vector>
#include <string>
#include <map>
#include <cstdlib>
#include <cstring>
static inline __attribute__((always_inline)) char *inner(size_t n) { char *p = (char *)malloc(n); memset(p, 0, n); return p; }
static inline __attribute__((always_inline)) char *outer(size_t n) { return inner(n * 2); }
__attribute__((noinline)) void worker(int id, std::vector<char *> *keep) {
	std::map<int, std::string> m;
	for (int i = 0; i < 2000; i++) m[i] = std::string(40 + id, 'x');
	for (int i = 0; i < 500; i++) { char *p = outer(100 + i); if (i % 5 == 0) keep->push_back(p); else free(p); }
	void *r = nullptr; for (int i = 1; i < 50; i++) r = realloc(r, i * 1000); free(r);
}
int main() {
	std::vector<char *> keep[4]; std::vector<std::thread> ts;
	for (int i = 0; i < 4; i++) ts.emplace_back(worker, i, &keep[i]);
	for (auto &t : ts) t.join();
	int *big = new int[100000]; big[5] = 1; delete[] big;
	return (int)keep[0].size() - 100;
}
