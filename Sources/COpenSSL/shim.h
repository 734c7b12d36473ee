#ifndef SILENTPUSH_COPENSSL_SHIM_H
#define SILENTPUSH_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>

/* OpenSSL 3 builds SSL_OP_* from function-like macros: Swift imports none of them. */
static inline uint64_t copenssl_op_no_compression(void) { return SSL_OP_NO_COMPRESSION; }
static inline uint64_t copenssl_op_no_renegotiation(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t copenssl_op_cipher_server_preference(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }

#endif
