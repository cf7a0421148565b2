/*
 * The hook client: a constructor that runs before the Go runtime starts.
 * When this process is `zylos-memory [--zylos-dir DIR] hook EVENT` for an
 * event the resident service answers, and the service of that home is
 * up, it hands the invocation (argv, environment, working directory and
 * stdin) to the service, writes the service's answer and exits: the Go
 * runtime and the packages' initialisation, most of a hook's cost, never
 * run. It does the same, sending no stdin, for the commands zylos's own
 * session start runs (ZM_COMMANDS). In every other case it returns having
 * read nothing from stdin, and the process goes on as if it were not
 * there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client.h"

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_add(struct buf *b, const void *p, size_t n) {
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		char *np = realloc(b->p, cap);
		if (np == NULL)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static int buf_field(struct buf *b, const char *s) { return buf_add(b, s, strlen(s) + 1); }

static int64_t now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint32_t get_u32(const char *p) {
	const unsigned char *u = (const unsigned char *)p;
	return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static void put_u32(char *p, uint32_t v) {
	p[0] = (char)(v >> 24);
	p[1] = (char)(v >> 16);
	p[2] = (char)(v >> 8);
	p[3] = (char)v;
}

/* poll_until polls fds until one is ready or deadline passes: the count
 * of ready fds, 0 at the deadline, -1 on error. */
static int poll_until(struct pollfd *fds, nfds_t n, int64_t deadline) {
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return 0;
		int r = poll(fds, n, left > INT_MAX ? INT_MAX : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		return r;
	}
}

static int send_all(int fd, const char *p, size_t n, int64_t deadline) {
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		struct pollfd pf = {fd, POLLOUT, 0};
		if (poll_until(&pf, 1, deadline) <= 0)
			return -1;
	}
	return 0;
}

static int recv_full(int fd, char *p, size_t n, int64_t deadline) {
	while (n > 0) {
		ssize_t r = recv(fd, p, n, 0);
		if (r > 0) {
			p += r;
			n -= (size_t)r;
			continue;
		}
		if (r == 0 || (errno != EAGAIN && errno != EINTR))
			return -1;
		struct pollfd pf = {fd, POLLIN, 0};
		if (poll_until(&pf, 1, deadline) <= 0)
			return -1;
	}
	return 0;
}

/* write_all writes to stdout or stderr, which the hook's caller may have
 * made non-blocking, as Go's poller would: waiting until it drains. */
static void write_all(int fd, const char *p, size_t n) {
	int64_t deadline = now_ms() + ZM_WRITE_WAIT_MS;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		struct pollfd pf = {fd, POLLOUT, 0};
		if (w == 0 || errno != EAGAIN || poll_until(&pf, 1, deadline) <= 0)
			return;
	}
}

/* stdio_usable tells whether stdin, stdout and stderr are as a hook's
 * process expects them: open, and stdin readable. Anything else (a closed
 * descriptor, which the Go runtime would replace by /dev/null; stdin a
 * directory or write-only, whose read error the process reports) is left
 * to the process. */
static int stdio_usable(void) {
	struct stat st;
	int flags = fcntl(0, F_GETFL);
	if (flags < 0 || (flags & O_ACCMODE) == O_WRONLY || fstat(0, &st) != 0 || S_ISDIR(st.st_mode))
		return 0;
	return fcntl(1, F_GETFD) >= 0 && fcntl(2, F_GETFD) >= 0;
}

static int served(const char *event) {
	size_t n = strlen(event);
	for (const char *s = ZM_SERVED; *s;) {
		const char *end = strchr(s, ' ');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		if (len == n && strncmp(s, event, n) == 0)
			return 1;
		s += len + (end != NULL);
	}
	return 0;
}

/* command_served tells whether the n words are one of ZM_COMMANDS. */
static int command_served(int n, char **words) {
	char line[64];
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		size_t w = strlen(words[i]);
		if (len + w + 1 >= sizeof line)
			return 0;
		if (i > 0)
			line[len++] = ' ';
		memcpy(line + len, words[i], w);
		len += w;
	}
	line[len] = '\0';
	for (const char *s = ZM_COMMANDS; *s;) {
		const char *end = strchr(s, '|');
		size_t l = end ? (size_t)(end - s) : strlen(s);
		if (l == len && strncmp(s, line, len) == 0)
			return 1;
		s += l + (end != NULL);
	}
	return 0;
}

/* home_of is the home directory an invocation is for, or NULL when argv
 * is not one the service answers: a hook (*command 0, *event its entry
 * point) or one of ZM_COMMANDS (*command 1, *event its first word). Any
 * global flag other than --zylos-dir leaves the invocation to the
 * process. */
static const char *home_of(int argc, char **argv, const char **event, int *command) {
	const char *dir = NULL;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if ((strcmp(a, "--zylos-dir") == 0 || strcmp(a, "-zylos-dir") == 0) && i + 1 < argc)
			dir = argv[++i];
		else if (strncmp(a, "--zylos-dir=", 12) == 0)
			dir = a + 12;
		else if (strncmp(a, "-zylos-dir=", 11) == 0)
			dir = a + 11;
		else
			return NULL;
	}
	if (i >= argc)
		return NULL;
	if (strcmp(argv[i], "hook") == 0) {
		if (i + 1 >= argc || !served(argv[i + 1]))
			return NULL;
		*event = argv[i + 1];
		*command = 0;
	} else if (command_served(argc - i, argv + i)) {
		*event = argv[i];
		*command = 1;
	} else
		return NULL;
	if (dir == NULL)
		dir = getenv("ZYLOS_DIR");
	return dir;
}

/* own_deadline_ms is the deadline the hook's command line gives: its
 * --timeout in the plain forms Go's time.ParseDuration reads (a whole
 * number of ms, s or m), ZM_DEFAULT_DEADLINE_MS without one, and
 * ZM_MAX_DEADLINE_MS for a form it does not read (the service checks the
 * flag and declines what it refuses). */
static uint32_t own_deadline_ms(int argc, char **argv) {
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		if ((strcmp(argv[i], "--timeout") == 0 || strcmp(argv[i], "-timeout") == 0) && i + 1 < argc)
			v = argv[i + 1];
		else if (strncmp(argv[i], "--timeout=", 10) == 0)
			v = argv[i] + 10;
		else if (strncmp(argv[i], "-timeout=", 9) == 0)
			v = argv[i] + 9;
		if (v == NULL)
			continue;
		char *end;
		errno = 0;
		unsigned long long n = strtoull(v, &end, 10);
		if (errno != 0 || end == v || n > ZM_MAX_DEADLINE_MS)
			return ZM_MAX_DEADLINE_MS;
		if (strcmp(end, "ms") == 0)
			return n == 0 ? ZM_DEFAULT_DEADLINE_MS : (uint32_t)n;
		if (strcmp(end, "s") == 0 && n <= ZM_MAX_DEADLINE_MS / 1000)
			return n == 0 ? ZM_DEFAULT_DEADLINE_MS : (uint32_t)(n * 1000);
		if (strcmp(end, "m") == 0 && n <= ZM_MAX_DEADLINE_MS / 60000)
			return n == 0 ? ZM_DEFAULT_DEADLINE_MS : (uint32_t)(n * 60000);
		return ZM_MAX_DEADLINE_MS;
	}
	return ZM_DEFAULT_DEADLINE_MS;
}

/* open_state opens the home's memory/.state as the service of that home
 * would have made it: memory and .state real directories (no symlink),
 * .state owned by this user. The home's own path may pass through
 * symlinks, as every command resolves it. */
static int open_state(const char *home) {
	char path[PATH_MAX];
	int n;
	if (home != NULL && *home != '\0')
		n = snprintf(path, sizeof path, "%s", home);
	else {
		const char *h = getenv("HOME");
		if (h == NULL || *h == '\0')
			return -1;
		n = snprintf(path, sizeof path, "%s/zylos", h);
	}
	if (n < 0 || (size_t)n >= sizeof path)
		return -1;
	int dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	const char *below[] = {"memory", ".state"};
	for (size_t i = 0; dir >= 0 && i < sizeof below / sizeof below[0]; i++) {
		int next = openat(dir, below[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		dir = next;
	}
	struct stat st;
	if (dir >= 0 && (fstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())) {
		close(dir);
		return -1;
	}
	return dir;
}

/* connect_service connects to the service of home, or returns -1. Only a
 * socket of this user, in the home's own state directory, with a process
 * of this user listening, is told anything: the request carries the
 * prompt, the environment and the command line, and the answer goes into
 * the agent's context. */
static int connect_service(const char *home) {
	int dir = open_state(home);
	if (dir < 0)
		return -1;
	struct stat st;
	if (fstatat(dir, ZM_SOCKET, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
		close(dir);
		return -1;
	}
	/* Through the directory's descriptor, a home of any path length fits
	 * in sun_path. */
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof addr.sun_path, "/proc/self/fd/%d/" ZM_SOCKET, dir);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct ucred cred;
	socklen_t len = sizeof cred;
	if (fd >= 0 && (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
	                getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != geteuid())) {
		close(fd);
		fd = -1;
	}
	close(dir);
	return fd;
}

/* request is the invocation as the server reads it: a 4-byte length, then
 * NUL-terminated fields: ZM_MAGIC, this binary's identity and path, the
 * working directory, when the client started waiting (CLOCK_MONOTONIC,
 * ms), the umask, argc, argv, and the environment. */
static int request(struct buf *b, int64_t started, int argc, char **argv, char **envp) {
	char exe[PATH_MAX], cwd[PATH_MAX], field[128];
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0 || stat("/proc/self/exe", &st) != 0 || getcwd(cwd, sizeof cwd) == NULL)
		return -1;
	exe[n] = '\0';
	snprintf(field, sizeof field, "%llu:%llu:%lld:%lld.%09ld", (unsigned long long)st.st_dev,
	         (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
	         st.st_mtim.tv_nsec);
	char size[4] = {0};
	if (buf_add(b, size, 4) || buf_field(b, ZM_MAGIC) || buf_field(b, field) || buf_field(b, exe) ||
	    buf_field(b, cwd))
		return -1;
	snprintf(field, sizeof field, "%lld", (long long)started);
	if (buf_field(b, field))
		return -1;
	/* Read by setting it back: the constructor runs before any other
	 * thread could create a file meanwhile. */
	mode_t mask = umask(0);
	umask(mask);
	snprintf(field, sizeof field, "%u", (unsigned)mask);
	if (buf_field(b, field))
		return -1;
	snprintf(field, sizeof field, "%d", argc);
	if (buf_field(b, field))
		return -1;
	for (int i = 0; i < argc; i++)
		if (buf_field(b, argv[i]))
			return -1;
	for (char **e = envp; e != NULL && *e != NULL; e++)
		if (buf_field(b, *e))
			return -1;
	if (b->len - 4 > ZM_MAX_REQUEST)
		return -1;
	put_u32(b->p, (uint32_t)(b->len - 4));
	return 0;
}

/* relay passes stdin (none without use_stdin) to the service until its
 * answer is complete or deadline passes; 0 when ans holds the whole
 * answer. */
static int relay(int sock, struct buf *ans, int64_t deadline, int use_stdin) {
	/* Static: a constructor may run on a small stack (ulimit -s), and
	 * runs once, before any other thread. */
	static char in[65536], chunk[65536];
	size_t inlen = 0, inoff = 0;
	int stdin_fd = use_stdin ? 0 : -1;
	if (!use_stdin)
		shutdown(sock, SHUT_WR);
	for (;;) {
		/* Stdin is read only once what was read of it is sent. */
		int pending = inlen > inoff;
		struct pollfd fds[2] = {{sock, pending ? POLLIN | POLLOUT : POLLIN, 0},
		                        {pending ? -1 : stdin_fd, POLLIN, 0}};
		int r = poll_until(fds, 2, deadline);
		if (r <= 0)
			return -1;
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = recv(sock, chunk, sizeof chunk, 0);
			/* A service that answered before reading all of stdin
			 * resets the connection: the answer read so far is
			 * whole or not, as its lengths tell. */
			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
				return 0;
			if (n > 0 && (ans->len + (size_t)n > ZM_MAX_ANSWER || buf_add(ans, chunk, (size_t)n)))
				return -1;
		}
		if (fds[0].revents & POLLOUT) {
			ssize_t n = send(sock, in + inoff, inlen - inoff, MSG_NOSIGNAL);
			if (n > 0)
				inoff += (size_t)n;
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				inoff = inlen, stdin_fd = -1; /* the service read all it wants */
		}
		if (fds[1].fd >= 0 && fds[1].revents) {
			ssize_t n = read(stdin_fd, in, sizeof in);
			if (n > 0) {
				inlen = (size_t)n;
				inoff = 0;
			} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				stdin_fd = -1;
				shutdown(sock, SHUT_WR);
			}
		}
	}
}

/* answer hands the invocation to the service. It returns 1 with the exit
 * status in *code once this process has answered, or 0 when the process
 * must answer itself. */
static int answer(int argc, char **argv, char **envp, int *code) {
	const char *event = NULL;
	int command = 0;
	const char *home = home_of(argc, argv, &event, &command);
	if (event == NULL || !stdio_usable())
		return 0;
	int64_t started = now_ms();
	int sock = connect_service(home);
	if (sock < 0)
		return 0;
	struct buf req = {0}, ans = {0};
	int answered = 0;
	char reply[5];
	int64_t deadline = started + ZM_ACCEPT_WAIT_MS;
	if (request(&req, started, argc, argv, envp) != 0 || send_all(sock, req.p, req.len, deadline) != 0 ||
	    recv_full(sock, reply, 1, deadline) != 0 || reply[0] != ZM_ACCEPT ||
	    recv_full(sock, reply + 1, 4, deadline) != 0)
		goto out;
	/* From here on a hook's stdin is being read: this process answers, if
	 * only by failing open. A command reads none: without a whole answer
	 * the process runs it itself. */
	answered = !command;
	*code = 0;
	/* A command's deadline in the service is ZM_ACCEPT_WAIT_MS. */
	uint32_t wait = get_u32(reply + 1), own = command ? ZM_ACCEPT_WAIT_MS : own_deadline_ms(argc, argv);
	if (wait > own)
		wait = own;
	deadline = now_ms() + wait + ZM_ANSWER_GRACE_MS;
	if (relay(sock, &ans, deadline, !command) == 0 && ans.len >= 9 && ans.p[0] == ZM_ANSWER) {
		uint32_t status = get_u32(ans.p + 1), outlen = get_u32(ans.p + 5);
		if (ans.len >= 13 && outlen <= ans.len - 13) {
			uint32_t errlen = get_u32(ans.p + 9 + outlen);
			if (errlen == ans.len - 13 - outlen) {
				write_all(1, ans.p + 9, outlen);
				write_all(2, ans.p + 13 + outlen, errlen);
				*code = (int)status;
				answered = 1;
				goto out;
			}
		}
	}
	if (command)
		goto out;
	char msg[256];
	int n = snprintf(msg, sizeof msg,
	                 "zylos-memory hook %s: no answer from the memory service in time (failing open)\n", event);
	if (n > 0)
		write_all(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
out:
	close(sock);
	free(req.p);
	free(ans.p);
	return answered;
}

/* glibc passes argc, argv and the environment to constructors; other C
 * libraries (musl) pass nothing, and there every hook answers itself. */
#ifdef __GLIBC__
__attribute__((constructor)) static void zylos_memory_hook_client(int argc, char **argv, char **envp) {
	int code;
	if (answer(argc, argv, envp, &code))
		_exit(code);
}
#endif
