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

/* The chain calls are macros over SSL_CTX_ctrl. */
static inline long copenssl_ctx_clear_chain_certs(SSL_CTX *context) { return SSL_CTX_clear_chain_certs(context); }
static inline long copenssl_ctx_add0_chain_cert(SSL_CTX *context, X509 *certificate) { return SSL_CTX_add0_chain_cert(context, certificate); }
/* Whether an error is PEM's "no start line": where reading a file of PEM blocks ends. */
static inline int copenssl_error_is_pem_end(unsigned long error) {
    return ERR_GET_LIB(error) == ERR_LIB_PEM && ERR_GET_REASON(error) == PEM_R_NO_START_LINE;
}

#endif
