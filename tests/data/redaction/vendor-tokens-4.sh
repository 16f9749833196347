# keys of LLM providers and CI vendors an agent is given (every value FAKE)
export OPENROUTER_API_KEY=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
curl https://api.x.ai/v1/models -H "Authorization: Bearer xai-bG6FAKEv4ZanPT0I26hl0wRjSDJEUSNmE1oVjEsQvbUz95y56kwAI9rhYvnYhPl7dt6K8xxckvZqdyVi"
client = Groq(api_key="gsk_LsDFAKEg5y7XbRdxkoOhihiPLoQnTE1dvnjCVn3xKc6N3uVoxRjn")
echo dckr_pat_8aPFAKEBPWm09VUtovQXGN0G0gt | docker login -u ci --password-stdin
pulumi login --cloud-url https://api.pulumi.com  # token pul-857d7eeea40faa71265a49c13dcaeb9ec161e8f4
{"installed": {"client_id": "1234-fake.apps.googleusercontent.com", "client_secret": "GOCSPX-aUWFAKESsrUfW9ajUrX_HyxMoAyf"}}
curl -H "X-Goog-Api-Client: x" https://www.googleapis.com/drive/v3/files?access_token=ya29.UQ1FAKEphdgJf6wTof0ivuj2TGX6gBv_XKLdwW5lLqVMafcGHQ5oKZDfDcBaThIbbATxGtt3HzLMLrK-bmHHvNva3L7sb8Fkzq4DCG-gNBDFE4nM1_yQzpkdrjCZGZgnlyjNZ-g1KBqNDYZZvbg
SECRET_KEY = 'django-insecure-$4ojo)f$18ta75j=ugtb)=z@f%@d(p&x4sd3dc^@xrte#u+&bt'
# look-alikes that stay: the xai-sdk package, gsk_ in a doc, git checkout pul-request-fix
