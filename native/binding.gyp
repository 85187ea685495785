{
  "variables": {
    "secp256k1_lib%": ""
  },
  "targets": [
    {
      "target_name": "basalt_native",
      "sources": ["src/addon.c", "src/keccak.c"],
      "cflags": ["-O3", "-std=c11"],
      "defines": ["NAPI_VERSION=8"],
      "conditions": [
        ["secp256k1_lib!=''", {
          "defines": ["BASALT_SECP256K1=1"],
          "libraries": ["<(secp256k1_lib)"]
        }]
      ]
    }
  ]
}
