/*
 * basalt's native hot paths, exposed through Node-API (stable across Node versions):
 * - keccak256(bytes: Uint8Array): Uint8Array — one call, no hasher object (the per-call cost
 *   that made the `keccak` package barely faster than JavaScript on 32-byte inputs).
 */
#include <node_api.h>

#include "keccak.h"

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

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  CHECK(napi_create_function(env, "keccak256", NAPI_AUTO_LENGTH, keccak256, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "keccak256", fn));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
