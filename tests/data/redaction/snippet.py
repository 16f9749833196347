import os
import stripe
from getpass import getpass

stripe.api_key = "sk_test_3dhFAKEi4wVnX558GkvxThvA"
GITHUB_TOKEN = "github_pat_wXqFAKExni7z9KwRkNr4aE_28uz5eRTpPWzUB4q60sskDI1EDL0Y6wu1JOSNta0PKhe37ak1aSJARa7717"
API_KEY = "f983eadec108b08c3ce052e96819b8ac"


def connect(user, password=None):
    password = password or getpass()
    token = os.environ.get("API_TOKEN")
    return Client(user=user, password=password, token=token)


client = OpenAI(api_key="sk-proj-Ul8FAKEoPK_HJN45P-ED75cNRqsKz5b70CO8W7RQHy2Yp_ptzsJqLOJqu3g9DYpQaxEN_cNljiT3BlbkFJRkV71kDRuIr2jhTxs_OHKDpnJh-rgiOaPq-N9RtlnnudSkpmKog0Qwp-vaQcT7xl2cwC6dT0ct")
