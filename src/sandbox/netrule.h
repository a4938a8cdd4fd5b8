/* Network rules of the egress allowlist: parsing of the annotation entries
 * (allowlist entries and trusted URLs) into normalised rules, and matching of
 * a request target against them. Pure code, shared by clasp (validation at
 * create, policy file writing) and by the clasp-egress hook (matching). */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define NETRULE_HOST_MAX 253

enum netrule_kind { NETRULE_ALLOW, NETRULE_TRUSTED };

struct netrule {
	enum netrule_kind kind;
	char host[NETRULE_HOST_MAX + 1]; /* lowercased, no trailing dot; IPv6 without brackets */
	uint16_t port;                   /* 0 = any port (bare-host allowlist entries only) */
	bool is_ip;                      /* host is a canonical IPv4/IPv6 literal */
	char scheme[8];                  /* "http"/"https" for trusted URLs and origin entries, else "" */
};

/* Parse one ing.paperclip.net.allowlist entry: "host", "host:port",
 * "[v6]:port" or an origin URL "http(s)://host[:port]". On error fills err with
 * the reason only (the caller prefixes the key and index). */
int netrule_parse_allow(const char *entry, struct netrule *out, struct clasp_error *err);

/* Parse one ing.paperclip.net.trusted-urls entry (http or https URL; a path is
 * allowed and ignored; port defaults by scheme). */
int netrule_parse_trusted(const char *url, struct netrule *out, struct clasp_error *err);

/* Parse a request target host (from CONNECT or an absolute-form URL) and port
 * text. Returns 0 and fills host (normalised) and port, or -1 when the target
 * is malformed (non-canonical IP forms, bad port, zone ids...). */
int netrule_parse_target(const char *host, size_t host_len, const char *port, size_t port_len,
			 char out_host[NETRULE_HOST_MAX + 1], uint16_t *out_port,
			 struct clasp_error *err);

/* First rule matching host:port, or NULL. Host must already be normalised. */
const struct netrule *netrule_match(const struct netrule *rules, size_t n, const char *host,
				    uint16_t port);

/* Like netrule_match, restricted to one kind of rule (trusted URLs are
 * looked up first, since they may reach loopback addresses). */
const struct netrule *netrule_match_kind(const struct netrule *rules, size_t n,
					 enum netrule_kind kind, const char *host, uint16_t port);

/* Validate and normalise a bare host (IPv6 with or without brackets):
 * lowercase, one trailing dot dropped, IP literals only in canonical form.
 * Sets *is_ip. Used for rule hosts, request targets and the policy file. */
int netrule_normalize_host(const char *host, size_t len, char out[NETRULE_HOST_MAX + 1],
			   bool *is_ip, struct clasp_error *err);

/* Parse a port: all digits, 1..65535. */
int netrule_parse_port(const char *s, size_t len, uint16_t *out, struct clasp_error *err);

/* True when an address resolved for a hostname rule lies in a forbidden range
 * (loopback, link-local, unspecified, and their v4-mapped/NAT64 forms). */
struct sockaddr;
bool netrule_addr_forbidden_for_hostname(const struct sockaddr *sa);
