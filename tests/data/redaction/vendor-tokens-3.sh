# keys an agent prints or is given (every value FAKE)
$ age-keygen
# created: 2026-12-03T22:00:00Z
# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
AGE-SECRET-KEY-1DXP9XW6EK35YLYH9XEQH8GKEWWHC9FHMZL4TTPVR335XJA5NC8LCNDG5C0
$ age-plugin-yubikey --identity
AGE-PLUGIN-YUBIKEY-1RHRP0DNCMG3UA8FSYTHQS8V39ZFQXC8X4N5049YLJ4HXLQQ2ECTP39DX84FP
twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmcKVvFAKEgnSuhnRJM0f_Z1_tqkD_Y8BKKKfiKxaPxqRu6Yo8lohE6w2wxqP-oiFQmhFM0rFF-5pgYmpUb_Zc5w7jdRIbASDazNML9mE9h9JTbvL_X75uZ7psA dist/*
doppler run --token dp.st.prd.C5AFAKEVAppqOVL36DcB2nKlAsE6yK775dUiJ0IS -- npm start
# look-alikes that stay: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p, pypi-simple, dp.st
