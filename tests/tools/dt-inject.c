/*
 * dt-inject: forge marked TCP segments on a live connection of its own,
 * as an attacker who knows the connection would (IPv4; root).
 *
 *   dt-inject [-w] HOST PORT OFFSET[:csum|:ack]...
 *       connect to HOST PORT (an echo server), send "hello" and read its
 *       answer; then, for each OFFSET, send from a raw socket one segment
 *       of that connection (same addresses and ports, ACK, the mark bit)
 *       holding one byte 'x', at sequence number snd_nxt + OFFSET (OFFSET
 *       in decimal, may be negative or as large as 2^31). snd_nxt is
 *       read with TCP_REPAIR (CAP_NET_ADMIN). Prints snd_nxt; exit 0 if
 *       every step worked. The connection is then reset.
 *       With ":csum", the segment's checksum is wrong; with ":ack", it
 *       acknowledges 2^30 bytes the peer never sent (nor queued): TCP drops both.
 *       With -w, the connection then writes "after" itself (unmarked,
 *       at the sequence numbers the forged segments claimed, if TCP
 *       dropped them) and reads its echo.
 *
 * An OFFSET of 0 is where the peer's TCP takes the next byte: the forged
 * byte is data. 1073741824 (2^30) is far outside any receive window.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MARK_BIT 0x08		/* byte 12 of the TCP header */

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t add16(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

/* A TCP segment (header + 'x') from src to dst with the mark set. */
static size_t forge(uint8_t *seg, const struct sockaddr_in *src,
		    const struct sockaddr_in *dst, uint32_t seq, uint32_t ack)
{
	uint8_t pseudo[12];
	uint32_t sum;
	uint16_t csum;

	memset(seg, 0, 21);
	memcpy(seg, &src->sin_port, 2);
	memcpy(seg + 2, &dst->sin_port, 2);
	seq = htonl(seq);
	ack = htonl(ack);
	memcpy(seg + 4, &seq, 4);
	memcpy(seg + 8, &ack, 4);
	seg[12] = 5 << 4 | MARK_BIT;	/* data offset 5 words, the mark */
	seg[13] = 0x18;			/* PSH, ACK */
	seg[14] = 0xff;			/* window */
	seg[15] = 0xff;
	seg[20] = 'x';
	memcpy(pseudo, &src->sin_addr, 4);
	memcpy(pseudo + 4, &dst->sin_addr, 4);
	pseudo[8] = 0;
	pseudo[9] = IPPROTO_TCP;
	pseudo[10] = 0;
	pseudo[11] = 21;
	sum = add16(add16(0, pseudo, sizeof(pseudo)), seg, 21);
	csum = htons(fold(sum));
	memcpy(seg + 16, &csum, 2);
	return 21;
}

enum flaw { NONE, CSUM, ACK };

/*
 * OFFSET[:csum|:ack] as a number and its flaw, or -1 with errno EINVAL
 * if it is not one.
 */
static long long offset_of(const char *arg, enum flaw *flaw)
{
	char *end;
	long long v;

	errno = 0;
	*flaw = NONE;
	v = strtoll(arg, &end, 10);
	if (!strcmp(end, ":csum"))
		*flaw = CSUM;
	else if (!strcmp(end, ":ack"))
		*flaw = ACK;
	else if (*end)
		end = NULL;
	if (errno || !end || end == arg || v < -2147483648LL || v > 2147483648LL) {
		errno = EINVAL;
		return -1;
	}
	return v;
}

static int fail(const char *what)
{
	fprintf(stderr, "dt-inject: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct sockaddr_in src, dst;
	socklen_t len = sizeof(src);
	struct addrinfo *ai;
	uint32_t seq, ack = 0;
	char buf[64];
	uint8_t seg[21];
	int fd, raw, on = 1, off = 0, q = TCP_SEND_QUEUE;
	enum flaw flaw;
	long long at;
	ssize_t n;

	bool after = argc > 1 && !strcmp(argv[1], "-w");

	if (after) {
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: dt-inject [-w] HOST PORT OFFSET[:csum|:ack]...\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (offset_of(argv[i], &flaw) == -1 && errno) {
			fprintf(stderr, "dt-inject: OFFSET '%s': not a number in [-2^31, 2^31], with :csum, :ack or nothing after it\n",
				argv[i]);
			return 2;
		}
	}
	if (getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		fprintf(stderr, "dt-inject: cannot resolve %s\n", argv[1]);
		return 1;
	}
	memcpy(&dst, ai->ai_addr, sizeof(dst));
	freeaddrinfo(ai);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&dst, sizeof(dst)))
		return fail("connect");
	if (write(fd, "hello", 5) != 5 || (n = read(fd, buf, sizeof(buf))) <= 0)
		return fail("echo");
	if (getsockname(fd, (struct sockaddr *)&src, &len))
		return fail("getsockname");
	len = sizeof(seq);
	if (setsockopt(fd, SOL_TCP, TCP_REPAIR, &on, sizeof(on)) ||
	    setsockopt(fd, SOL_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)) ||
	    getsockopt(fd, SOL_TCP, TCP_QUEUE_SEQ, &seq, &len))
		return fail("TCP_REPAIR (root?)");
	q = TCP_RECV_QUEUE;
	len = sizeof(ack);
	if (setsockopt(fd, SOL_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)) ||
	    getsockopt(fd, SOL_TCP, TCP_QUEUE_SEQ, &ack, &len) ||
	    setsockopt(fd, SOL_TCP, TCP_REPAIR, &off, sizeof(off)))
		return fail("TCP_REPAIR");
	printf("%u\n", seq);
	raw = socket(AF_INET, SOCK_RAW, IPPROTO_TCP);
	if (raw < 0)
		return fail("raw socket");
	for (int i = 3; i < argc; i++) {
		at = offset_of(argv[i], &flaw);
		forge(seg, &src, &dst, seq + (uint32_t)at,
		      flaw == ACK ? ack + (1U << 30) : ack);
		if (flaw == CSUM)
			seg[16] ^= 0xff;
		if (sendto(raw, seg, sizeof(seg), 0, (struct sockaddr *)&dst,
			   sizeof(dst)) != (ssize_t)sizeof(seg))
			return fail("sendto");
		usleep(200000);
	}
	if (after && (write(fd, "after", 5) != 5 ||
		      read(fd, buf, sizeof(buf)) <= 0))
		return fail("echo after");
	close(raw);
	close(fd);
	return 0;
}
