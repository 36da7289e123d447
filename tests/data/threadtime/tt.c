/* SPDX-License-Identifier: MIT */
/* The thread-time test program: threads that contend for a mutex, sleep, wait for disk
 * writes and compete for the CPUs, so a sched_switch recording of it has every kind of
 * interval (running, runnable, sleeping, uninterruptible). record.sh records it. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void spin_ms(double ms)
{
	double end = now_ms() + ms;
	while (now_ms() < end)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i * 7;
}

__attribute__((noinline)) static void hold_lock(void)
{
	pthread_mutex_lock(&lock);
	spin_ms(2);
	pthread_mutex_unlock(&lock);
}

static void *locker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 60; i++) {
		hold_lock();
		spin_ms(0.5);
	}
	return NULL;
}

__attribute__((noinline)) static void nap(void)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (int i = 0; i < 40; i++) {
		nap();
		spin_ms(1);
	}
	return NULL;
}

__attribute__((noinline)) static void write_sync(int fd, const char *buf, size_t n)
{
	if (write(fd, buf, n) != (ssize_t)n)
		abort();
	fdatasync(fd);
}

static void *io(void *arg)
{
	const char *path = arg;
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0)
		return NULL;
	static char buf[1 << 16];
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 30; i++)
		write_sync(fd, buf, sizeof(buf));
	close(fd);
	unlink(path);
	return NULL;
}

static void *hog(void *arg)
{
	(void)arg;
	spin_ms(300);
	return NULL;
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/tt-io-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	pthread_t t[8];
	int n = 0;
	const char *names[] = { "locker-a", "locker-b", "locker-c", "sleeper", "io", "hog-a", "hog-b" };
	for (int i = 0; i < 3; i++)
		pthread_create(&t[n++], NULL, locker, NULL);
	pthread_create(&t[n++], NULL, sleeper, NULL);
	pthread_create(&t[n++], NULL, io, path);
	pthread_create(&t[n++], NULL, hog, NULL);
	pthread_create(&t[n++], NULL, hog, NULL);
	for (int i = 0; i < n; i++)
		pthread_setname_np(t[i], names[i]);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	(void)argc;
	(void)argv;
	return 0;
}
