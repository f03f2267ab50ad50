"""Secret redaction where no key names the secret: literals passed to logins, credential classes,
signing calls and setters; user and password pairs; XML; passwords a command takes as an
argument or on standard input; ``config set`` commands; a lower-case password said in a
sentence. And the code, markup, commands and sentences each rule must leave alone."""

from __future__ import annotations

import json
import string

import pytest
from redact_cases import r

from skillshelf.memory.redact import REDACTED, redact


def _redacted_exactly(template: str, secret: str) -> None:
    """``template`` with ``{}`` as the secret comes out with ``{}`` as the marker, the rest kept."""
    assert redact(template.format(secret)).text == template.format(REDACTED)


@pytest.mark.parametrize(
    "template",
    [
        'client.login("alice", "{}")',
        "smtp.login(user, '{}')",
        "ftp.login('deploy', '{}');",
        'await page.signIn(email, "{}", {{ remember: true }})',
        'auth.authenticate("svc", "{}")',
        'var cred = new NetworkCredential("svc", "{}");',
        'var cred = new NetworkCredential(@"svc", @"{}");',
        'requests.get(url, auth=HTTPBasicAuth("admin", "{}"))',
        'provider = StaticCredentialsProvider.create(AwsBasicCredentials.create("id", "{}"))',
        'new UsernamePasswordAuthenticationToken(name, "{}")',
        'pika.PlainCredentials("guest", "{}")',
        'requests.get(url, auth=("admin", "{}"))',
        'Elasticsearch(hosts, basic_auth=["elastic", "{}"])',
        'user.setPassword("{}");',
        'client = Client().with_token("{}")',
        'DataSourceBuilder.create().username("app").password("{}").build()',
        'jwt.sign(payload, "{}", {{ expiresIn: "1h" }})',
        'token = jwt.encode(claims, "{}", algorithm="HS256")',
        'crypto.createHmac("sha256", "{}").update(body)',
        'hmac.new(b"{}", msg, hashlib.sha256)',
    ],
)
def test_a_secret_literal_in_a_call_is_redacted(template: str) -> None:
    _redacted_exactly(template, r(14, string.ascii_letters + string.digits + "!#%&"))


@pytest.mark.parametrize(
    "template",
    [
        "<password>{}</password>",
        "  <server><id>nexus</id><username>ci</username><password>{}</password></server>",
        '<ns:ApiKey type="text">{}</ns:ApiKey>',
        '<add key="ClearTextPassword" value="{}" />',
        '<add key="ApiKey" value="{}"/>',
    ],
)
def test_a_secret_in_xml_is_redacted(template: str) -> None:
    _redacted_exactly(template, r(14))


@pytest.mark.parametrize(
    "text",
    [
        "client.login(username, password)",
        'app.post("/login", handler)',
        'console.log("login", "done")',
        "def login(self, username: str, password: str) -> None:",
        "requests.get(url, auth=(user, password))",
        "jwt.sign(payload, process.env.JWT_SECRET)",
        'jwt.decode(token, options={"verify_signature": False})',
        "hmac.new(key, msg, hashlib.sha256)",
        "setToken(token); withCredentials(true)",
        'client.login("alice", "YOUR_PASSWORD")',
        "<tokenizer>bert-base-uncased</tokenizer>",
        "<maxTokens>4096</maxTokens> <max_tokens>4096</max_tokens>",
        "<password>${env.DB_PASSWORD}</password>",
        '<add key="ApiKey" value="$(ApiKey)" />',
    ],
)
def test_code_and_markup_without_a_literal_secret_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "template",
    [
        'echo "{}" | docker login -u alice --password-stdin',
        "echo -n '{}' | helm registry login ghcr.io --password-stdin",
        "echo '{}' | sudo -S apt-get install -y jq",
        "printf '{}' | passwd --stdin alice",
        "gh auth login --with-token <<< {}",
        "htpasswd -b .htpasswd alice {}",
        "htpasswd -nbB alice '{}' > auth",
        "net user alice {} /add",
        "az login -u alice -p {}",
        "mysqladmin -u root password '{}'",
        "rabbitmqctl add_user deploy {}",
        "poetry config http-basic.private ci {}",
        "poetry config pypi-token.pypi {}",
        "aws configure set aws_secret_access_key {}",
        "npm config set //registry.npmjs.org/:_authToken {}",
        "git config --global github.token {}",
        "gh secret set DEPLOY_KEY --body '{}' --repo o/r",
        "mongosh mongodb://db:27017 -u admin -p '{}'",
        "sqlcmd -S localhost -U sa -P '{}' -Q 'select 1'",
        'ldapsearch -x -D "cn=admin,dc=example,dc=org" -w {} -b dc=example,dc=org',
        "smbclient //server/share -U alice%{}",
        "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:{}",
        "xfreerdp /v:host /u:alice /p:{}",
        "zip -P {} archive.zip notes.txt",
        "7z a -p{} archive.7z notes",
        "twine upload -u alice -p {} dist/*",
        "keytool -importkeystore -srcstorepass {} -destkeystore b.jks",
        "curl --oauth2-bearer {} https://api.example.net",
        'setx API_KEY "{}"',
    ],
)
def test_a_password_given_to_a_command_is_redacted(template: str) -> None:
    _redacted_exactly(template, r(16))


@pytest.mark.parametrize(
    "text",
    [
        "echo $GITHUB_TOKEN | gh auth login --with-token",
        'echo "$PW" | sudo -S true',
        "echo 'done' | tee build.log",
        'echo \'{"query": "x"}\' | tool run --stdin --jsonl',
        'npx prisma db execute --stdin <<< "SELECT count(*) FROM users"',
        "az login --service-principal -u APP_ID -p PASSWORD -t TENANT_ID",
        'echo "LOCAL_API_KEY" | homeycli auth set-local --password-stdin',
        "git config --global credential.helper store",
        "npm config set auth-type legacy",
        "aws configure set region us-east-1",
        "aws configure set aws_access_key_id $AWS_ACCESS_KEY_ID",
        "net user alice * /add",
        "net user alice /delete",
        "htpasswd -c .htpasswd alice",
    ],
)
def test_commands_without_a_secret_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "template",
    [
        "the password is {}",
        "my wifi password is {}, the guest one is on the fridge",
        "set the password to {}.",
        "The passphrase was '{}' last time",
    ],
)
def test_a_lower_case_password_said_in_a_sentence_is_redacted(template: str) -> None:
    _redacted_exactly(template, r(10, string.ascii_lowercase))


@pytest.mark.parametrize(
    "sentence",
    [
        "the password is required.",
        "The password is hashed.",
        "if the password is wrong, retry",
        "the password was changed.",
        "my password is secret.",
        "reset the password to default.",
        "set the password to something.",
        "the password is case-sensitive.",
        "the password is missing\nand the user name too",
        "the password is too short",
    ],
)
def test_a_sentence_about_a_password_stays(sentence: str) -> None:
    assert redact(sentence).text == sentence


@pytest.mark.parametrize(
    "template",
    [
        "ALTER USER app WITH PASSWORD '{}';",
        "CREATE ROLE app LOGIN PASSWORD '{}';",
        "CREATE USER 'app'@'%' IDENTIFIED BY '{}';",
        "ALTER USER 'app'@'%' IDENTIFIED WITH mysql_native_password BY '{}';",
        "SET PASSWORD FOR 'app'@'localhost' = PASSWORD('{}');",
    ],
)
def test_a_password_in_sql_is_redacted(template: str) -> None:
    _redacted_exactly(template, r(14))


@pytest.mark.parametrize(
    "text",
    [
        "payload = {'password': config['user_password'], 'user': name}",
        "SELECT id FROM users WHERE password_hash = crypt($1, password_hash)",
        "curl 'https://api.example.org/v1/items?api_key=$API_KEY&format=json&page=2'",
    ],
)
def test_sql_and_lookups_without_a_password_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "template",
    [
        "curl -d 'client_id=web&client_secret={}&grant_type=client_credentials' https://x.example.org",
        "GET /v1/items?api_key={}&page=2",
        'echo "machine api.example.org login bot password {}" >> ~/.netrc',
    ],
)
def test_a_secret_among_other_fields_leaves_them(template: str) -> None:
    _redacted_exactly(template, r(16))


@pytest.mark.parametrize("template", ["vault login {}", "vault login -no-print token={}"])
def test_a_vault_token_given_to_vault_login_is_redacted(template: str) -> None:
    _redacted_exactly(template, "s." + r(24))


def test_a_token_in_the_user_part_of_a_url_leaves_the_host() -> None:
    token = "ghs_" + r(36)
    line = f"git clone https://x-access-token:{token}@github.com/o/r.git"
    assert redact(line).text == f"git clone https://x-access-token:{REDACTED}@github.com/o/r.git"


def test_a_command_in_a_transcript_line_is_redacted_and_stays_json() -> None:
    secret = r(16)
    command = f"echo '{secret}' | docker login -u ci --password-stdin && htpasswd -b .htpasswd ci {secret}"
    line = json.dumps(
        {"type": "function_call", "arguments": json.dumps({"command": ["bash", "-lc", command]})}
    )
    out = redact(line).text
    assert secret not in out
    assert json.loads(json.loads(out)["arguments"])["command"][2] == command.replace(secret, REDACTED)
