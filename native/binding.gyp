{
  "targets": [
    {
      "target_name": "basalt_native",
      "sources": ["src/addon.c", "src/keccak.c"],
      "cflags": ["-O3", "-std=c11"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
