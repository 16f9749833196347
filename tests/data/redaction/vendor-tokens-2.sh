# a shell history of a demo app (every value FAKE)
vault login hvs.CAESdeUFAKEM8pEFI0PikfAT0mzM-_ufvd3IJI0vmhZEVUbncW6fK8kEKkcfc6W7J0xKnar3cpF5LzUp_C1N3-dYEVvo2Vg
export VAULT_TOKEN=s.USWFAKEja7vjOR4V8ohPQA8o
export DATABRICKS_TOKEN=dapi76411b190ca116d438ba5f3dd7926b64
curl https://api.telegram.org/bot123456789:AAvjYFAKErlzwB2jaxQRFIvtv9GeISyPuEA/getMe
curl -H 'Authorization: lin_api_lb8FAKEInpFxQNMnopFJ4XiM2bbj0xLBApPCCAv9' https://api.linear.app/graphql
curl -u dev@example.com:ATATT3FC7FAKEVOXytJCFVVSJQy1RcIVczxptKNi-7ixFzgCyal809ibb8VW3FJZDttwdFkc9jd0TmnzJJN1z4liGaH7jsbauw9aPZjci9f5SkM4wxRPbloIJTMGr-5B-cC9VuWmMOYDS-ZR1zHQGE_wqXCE7GqvL9dE_msDdNuS0Yx-1sbn-Ss=B22A57ED https://acme.atlassian.net/rest/api/3/myself
curl -H 'Authorization: Bot MTEyMjMzNDQ1NTY2Nzc4ODk5.At_08F.FajFAKEOmATtmHw3d5qm9NkDpS4sbbaDEeQAlU' https://discord.com/api/v10/users/@me
curl -s --user 'api:key-b710cdfb0304c54afe2814bd8cbe75ca' https://api.mailgun.net/v3/mg.example.com/messages
mem remember user/bank/pin FAKE-4471-9902 --sensitivity secret
printf '%s' 'FAKE-Velvet-Otter-42' | age -r age1examplerecipientfake -o pin.age
# look-alikes that stay: hvs.example_module_name, vault login -method=userpass, lin_api_client.py, key-value
