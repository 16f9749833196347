$ sshpass -p '2qvFAKEk316YW0' ssh deploy@web1 uptime
$ docker login -u ci -p sMsFAKEtapzdp0 registry.example.com
$ curl -sS -u admin:ikMFAKEXj3z23n https://ci.example.com/api/json
$ redis-cli -h cache -a 1cKFAKETyB4Ayv info
$ htpasswd -b /etc/nginx/.htpasswd ops 0nOFAKEV71VEmv
$ echo 'Eg8FAKEigHqtCt' | sudo -S systemctl restart nginx
$ docker login --password-stdin -u ci registry.example.com < token.txt
$ openssl rsa -passin env:KEY_PW -in server.key -out plain.key
