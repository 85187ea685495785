/*
 * basalt's native hot paths, exposed through Node-API (stable across Node versions):
 * - keccak256(bytes: Uint8Array): Uint8Array — one call, no hasher object (the per-call cost
 *   that made the `keccak` package barely faster than JavaScript on 32-byte inputs).
 * - secp256k1Recover(sig64, recid, msg32): Uint8Array — the 64-byte public key (x ‖ y, no 0x04
 *   prefix) that signed `msg32`, with the machine's libsecp256k1 (Debian's libsecp256k1-dev,
 *   linked statically; present only when build.mjs found it, BASALT_SECP256K1).
 *   Returns undefined when r or s is not below the group order or no key recovers.
 */
#include <node_api.h>
#include <string.h>

#include "keccak.h"
#ifdef BASALT_SECP256K1
#include <secp256k1.h>
#include <secp256k1_recovery.h>
#endif

#define CHECK(call)                                                  \
  do {                                                               \
    if ((call) != napi_ok) {                                         \
      napi_throw_error(env, "NATIVE_CALL_FAILED", #call " failed");  \
      return NULL;                                                   \
    }                                                                \
  } while (0)

static napi_value keccak256(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  bool is_typed = false;
  if (argc >= 1) CHECK(napi_is_typedarray(env, argv[0], &is_typed));
  if (!is_typed) {
    napi_throw_type_error(env, "NATIVE_BAD_ARGUMENT", "keccak256: expected a Uint8Array");
    return NULL;
  }
  napi_typedarray_type type;
  size_t length;
  void *data;
  CHECK(napi_get_typedarray_info(env, argv[0], &type, &length, &data, NULL, NULL));
  if (type != napi_uint8_array && type != napi_uint8_clamped_array) {
    napi_throw_type_error(env, "NATIVE_BAD_ARGUMENT", "keccak256: expected a Uint8Array");
    return NULL;
  }
  napi_value ab;
  void *out;
  CHECK(napi_create_arraybuffer(env, 32, &out, &ab));
  basalt_keccak256((const uint8_t *)data, length, (uint8_t *)out);
  napi_value result;
  CHECK(napi_create_typedarray(env, napi_uint8_array, 32, ab, 0, &result));
  return result;
}

#ifdef BASALT_SECP256K1
/* The bytes of a Uint8Array argument of exactly `want` bytes, or NULL after throwing a TypeError. */
static const uint8_t *bytes_arg(napi_env env, napi_value v, size_t want, const char *what) {
  bool is_typed = false;
  if (napi_is_typedarray(env, v, &is_typed) != napi_ok || !is_typed) {
    napi_throw_type_error(env, "NATIVE_BAD_ARGUMENT", what);
    return NULL;
  }
  napi_typedarray_type type;
  size_t length;
  void *data;
  if (napi_get_typedarray_info(env, v, &type, &length, &data, NULL, NULL) != napi_ok || type != napi_uint8_array || length != want) {
    napi_throw_type_error(env, "NATIVE_BAD_ARGUMENT", what);
    return NULL;
  }
  return (const uint8_t *)data;
}

static napi_value secp256k1_recover(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) {
    napi_throw_type_error(env, "NATIVE_BAD_ARGUMENT", "secp256k1Recover: expected (sig64, recid, msg32)");
    return NULL;
  }
  const uint8_t *sig = bytes_arg(env, argv[0], 64, "secp256k1Recover: sig must be a 64-byte Uint8Array");
  if (sig == NULL) return NULL;
  int32_t recid;
  if (napi_get_value_int32(env, argv[1], &recid) != napi_ok) {
    napi_throw_type_error(env, "NATIVE_BAD_ARGUMENT", "secp256k1Recover: recid must be a number");
    return NULL;
  }
  const uint8_t *msg = bytes_arg(env, argv[2], 32, "secp256k1Recover: msg must be a 32-byte Uint8Array");
  if (msg == NULL) return NULL;
  napi_value undef;
  CHECK(napi_get_undefined(env, &undef));
  if (recid < 0 || recid > 3) return undef;
  secp256k1_ecdsa_recoverable_signature rsig;
  secp256k1_pubkey pub;
  if (!secp256k1_ecdsa_recoverable_signature_parse_compact(secp256k1_context_static, &rsig, sig, recid)) return undef;
  if (!secp256k1_ecdsa_recover(secp256k1_context_static, &pub, &rsig, msg)) return undef;
  uint8_t full[65];
  size_t full_len = sizeof full;
  secp256k1_ec_pubkey_serialize(secp256k1_context_static, full, &full_len, &pub, SECP256K1_EC_UNCOMPRESSED);
  napi_value ab;
  void *out;
  CHECK(napi_create_arraybuffer(env, 64, &out, &ab));
  memcpy(out, full + 1, 64);
  napi_value result;
  CHECK(napi_create_typedarray(env, napi_uint8_array, 64, ab, 0, &result));
  return result;
}

#endif

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  CHECK(napi_create_function(env, "keccak256", NAPI_AUTO_LENGTH, keccak256, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "keccak256", fn));
#ifdef BASALT_SECP256K1
  /* libsecp256k1 asks users of its static context to run its self-test once. */
  secp256k1_selftest();
  CHECK(napi_create_function(env, "secp256k1Recover", NAPI_AUTO_LENGTH, secp256k1_recover, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "secp256k1Recover", fn));
#endif
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
