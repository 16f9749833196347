# vendor tokens an agent is handed, no label (every value FAKE)
deploy --with figd_FAKEK55hflZhb8QGgBviK3vfAlchsm_xj92OqV_y # step 0
deploy --with PMAK-97737b62b7369da00643fa06-f675a41e280982c8b74a622597f49b3fb9 # step 1
deploy --with 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 # step 2
deploy --with glsa_FAKEoTbOQNvhRs1oOl4H5j31DJwoppJC_a65678b2 # step 3
deploy --with NRAK-FAKE1N04HX8KS7XRJLELODAM0G8 # step 4
deploy --with nfp_FAKEwkWMPEAd0PK4cBP2th5KVjuvwlSosjN2 # step 5
deploy --with qnvdxa4pchq5ug.atlasv1.FAKEg6PlK_GOjluQyN65GgiQSgViJdCu3Ain5oBJtjuKby8V5Ahsv2FtbZDZDN8y # step 6
deploy --with fo1_FAKEb-qIIuhJZNrIp3yLZb4BQIrupc_upi29bEjagSo # step 7
deploy --with rnd_FAKEHIu9r8NN95MtlY31ttvjOZXzXzZc # step 8
deploy --with AKCpFAKEGWhmw9b1qx5sahwLq3a9MX5se1FGVIRVGbPjgmocaOnmiD0t3FOLzncAf9uhqjV8u # step 9
# look-alikes that stay: nfp_utils, rnd_module_name, figd_thing, AKCpython
