/*
 * dt-pcap: list the TCP segments of a capture file, one per line, with
 * the state of dtracer's mark, for the tests' assertions.
 *
 *   dt-pcap FILE
 *
 * Output, one line per TCP segment (IPv4 or IPv6):
 *   SRC SPORT DST DPORT SEQ LEN MARK AE FIRST LAST RESP
 * LEN is the payload length; MARK is 1 when the first reserved bit (0x08
 * of header byte 12) is set; AE is the 0x01 bit of that byte; FIRST and
 * LAST are the payload's first and last bytes ('.' if not printable, '-'
 * if there is no payload or it was not captured); RESP is 1 when the
 * second reserved bit (0x04, dtracer's response mark) is set. Exit 0 on success, 1
 * when the file cannot be read.
 *
 * libpcap reads the file (any format tcpdump writes); the link layers
 * handled are Ethernet and Linux cooked captures (tcpdump -i any).
 */
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned int be16(const unsigned char *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static unsigned long be32(const unsigned char *p)
{
	return (unsigned long)be16(p) << 16 | be16(p + 2);
}

/* The offset of the network header and its ethertype, or -1. */
static long link_header(int dlt, const unsigned char *p, size_t len,
			unsigned int *type)
{
	size_t off;

	switch (dlt) {
	case DLT_EN10MB:
		off = 12;
		while (len >= off + 2 && (be16(p + off) == 0x8100 ||
					  be16(p + off) == 0x88a8))
			off += 4;
		if (len < off + 2)
			return -1;
		*type = be16(p + off);
		return (long)off + 2;
	case DLT_LINUX_SLL:
		if (len < 16)
			return -1;
		*type = be16(p + 14);
		return 16;
	case DLT_LINUX_SLL2:
		if (len < 20)
			return -1;
		*type = be16(p);
		return 20;
	default:
		return -1;
	}
}

static char show(unsigned char c)
{
	return c > 0x20 && c < 0x7f ? (char)c : '.';
}

/* th: the TCP header; tcplen: its segment's length; caplen: captured. */
static void segment(const unsigned char *th, size_t tcplen, size_t caplen,
		    const char *src, const char *dst)
{
	char first = '-', last = '-';
	size_t doff;

	if (tcplen < 20 || caplen < 20)
		return;
	doff = (size_t)(th[12] >> 4) * 4;
	if (doff < 20 || doff > tcplen)
		return;
	if (tcplen > doff && caplen >= tcplen) {
		first = show(th[doff]);
		last = show(th[tcplen - 1]);
	}
	printf("%s %u %s %u %lu %zu %d %d %c %c %d\n", src, be16(th), dst,
	       be16(th + 2), be32(th + 4), tcplen - doff,
	       (th[12] & 0x08) != 0, (th[12] & 0x01) != 0, first, last,
	       (th[12] & 0x04) != 0);
}

static void packet(int dlt, const unsigned char *p, size_t len)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	unsigned int type;
	size_t ihl, total;
	long off;

	off = link_header(dlt, p, len, &type);
	if (off < 0)
		return;
	p += off;
	len -= (size_t)off;
	if (type == 0x0800 && len >= 20 && p[9] == 6) {
		ihl = (size_t)(p[0] & 0x0f) * 4;
		total = be16(p + 2);
		if (ihl < 20 || len < ihl || total < ihl || (be16(p + 6) & 0x3fff))
			return;
		inet_ntop(AF_INET, p + 12, src, sizeof(src));
		inet_ntop(AF_INET, p + 16, dst, sizeof(dst));
		segment(p + ihl, total - ihl, len - ihl, src, dst);
	} else if (type == 0x86dd && len >= 40 && p[6] == 6) {
		total = be16(p + 4);
		inet_ntop(AF_INET6, p + 8, src, sizeof(src));
		inet_ntop(AF_INET6, p + 24, dst, sizeof(dst));
		segment(p + 40, total, len - 40, src, dst);
	}
}

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const unsigned char *p;
	pcap_t *pc;
	int ret, dlt;

	if (argc != 2) {
		fprintf(stderr, "usage: dt-pcap FILE\n");
		return 2;
	}
	pc = pcap_open_offline(argv[1], err);
	if (!pc) {
		fprintf(stderr, "dt-pcap: %s\n", err);
		return 1;
	}
	dlt = pcap_datalink(pc);
	while ((ret = pcap_next_ex(pc, &h, &p)) == 1)
		packet(dlt, p, h->caplen);
	if (ret == PCAP_ERROR)
		fprintf(stderr, "dt-pcap: %s: %s\n", argv[1], pcap_geterr(pc));
	pcap_close(pc);
	return ret == PCAP_ERROR ? 1 : 0;
}
