# password files an agent reads or writes (every value FAKE)
$ echo "db.example.com:5432:app:alice:IXzFAKERXrp8RO4rubJ5" >> ~/.pgpass && chmod 600 ~/.pgpass
$ cat ~/.netrc
machine api.example.com
  login alice
  password AA6FAKEbgQrRNX8oNi
# look-alikes that stay: 10:33:47, host:5432, machine learning password manager
