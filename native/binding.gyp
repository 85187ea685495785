{
  "targets": [
    {
      "target_name": "basalt_secp256k1",
      "type": "static_library",
      "sources": ["secp256k1/src/secp256k1.c", "secp256k1/src/precomputed_ecmult.c", "secp256k1/src/precomputed_ecmult_gen.c"],
      "include_dirs": ["secp256k1/include", "secp256k1/src"],
      "cflags": ["-O3", "-std=c99", "-Wno-unused-function", "-Wno-unused-parameter"],
      "defines": ["ENABLE_MODULE_RECOVERY=1"]
    },
    {
      "target_name": "basalt_native",
      "sources": ["src/addon.c", "src/keccak.c"],
      "include_dirs": ["secp256k1/include"],
      "dependencies": ["basalt_secp256k1"],
      "cflags": ["-O3", "-std=c11"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
