// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the arm64 guest's initramfs (scripts/check-arm64.sh builds it
 * static): mount what the tests need, say the page size, run every
 * program under /tests/<suite>/ in order, print each one's output between
 * two marker lines, then power off.
 *
 *   arm64-init: page size 65536
 *   arm64-init: begin perf_events/uevent_prctl
 *   ...its TAP output...
 *   arm64-init: end perf_events/uevent_prctl exit 0
 *   arm64-init: done
 *
 * The exit status is the program's, 124 when it ran out of time (as with
 * timeout(1)), 128+N when signal N killed it. A program's output goes to
 * a file first and is printed when it is done, so kernel messages do not
 * land in the middle of a TAP line. TEST_TIMEOUT=<seconds> on the kernel
 * command line (the kernel hands it to init in the environment) bounds
 * each program; 120 s by default.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define PFX "arm64-init: "

static void mount_one(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		printf(PFX "cannot mount %s on %s: %s\n", type, dir, strerror(errno));
}

static int run(const char *path, const char *out, int limit)
{
	int status, fd, waited = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		setpgid(0, 0);
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	/* poll every 100 ms: no SIGALRM handler to get right in an init */
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (waited++ >= limit * 10) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return 124;
		}
		usleep(100000);
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void cat(const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	fflush(stdout);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(1, buf, n) < 0)
			break;
	close(fd);
}

static int not_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

int main(void)
{
	struct dirent **suites, **progs;
	const char *t = getenv("TEST_TIMEOUT");
	int limit = t && atoi(t) > 0 ? atoi(t) : 120;
	char path[1024], name[768];
	int ns, np, i, j, rc;

	mount_one("devtmpfs", "/dev", "devtmpfs");
	/* the console, whatever the kernel opened for us */
	i = open("/dev/console", O_RDWR);
	if (i >= 0) {
		dup2(i, 0);
		dup2(i, 1);
		dup2(i, 2);
		if (i > 2)
			close(i);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	mount_one("proc", "/proc", "proc");
	mount_one("sysfs", "/sys", "sysfs");
	mount_one("nodev", "/sys/kernel/tracing", "tracefs");
	mount_one("none", "/sys/fs/cgroup", "cgroup2");
	mount_one("tmpfs", "/tmp", "tmpfs");
	chdir("/tmp");

	printf(PFX "page size %ld\n", sysconf(_SC_PAGESIZE));
	printf(PFX "%ld CPUs, timeout %d s per program\n",
	       sysconf(_SC_NPROCESSORS_ONLN), limit);

	ns = scandir("/tests", &suites, not_dot, alphasort);
	for (i = 0; i < ns; i++) {
		snprintf(path, sizeof(path), "/tests/%s", suites[i]->d_name);
		np = scandir(path, &progs, not_dot, alphasort);
		for (j = 0; j < np; j++) {
			snprintf(name, sizeof(name), "%s/%s",
				 suites[i]->d_name, progs[j]->d_name);
			snprintf(path, sizeof(path), "/tests/%s", name);
			printf(PFX "begin %s\n", name);
			rc = run(path, "/tmp/out", limit);
			cat("/tmp/out");
			unlink("/tmp/out");
			printf(PFX "end %s exit %d\n", name, rc);
			free(progs[j]);
		}
		if (np > 0)
			free(progs);
		free(suites[i]);
	}
	printf(PFX "done\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
