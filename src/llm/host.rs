//! `OLLAMA_HOST` read the way Ollama's own clients read it.

/// The address Ollama's clients use when `OLLAMA_HOST` is unset.
pub const DEFAULT_OLLAMA_HOST: &str = "http://127.0.0.1:11434";

/// A host value that cannot be a server address (named without its credentials).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid Ollama host {text:?}: expected host[:port] or http(s)://host[:port], such as 127.0.0.1:11434")]
pub struct ParseHostError {
    /// The value given.
    pub text: String,
}

/// The base URL for a `--host` / `OLLAMA_HOST` value, following Ollama's rules: no
/// scheme means `http` and port 11434; `http://` without a port means 80, `https://`
/// 443; an empty host means 127.0.0.1; a path is kept, and so are credentials
/// (`user:password@`, sent to the server, named nowhere: see [`without_credentials`]).
///
/// ```
/// use llm::ollama_base_url;
/// assert_eq!(ollama_base_url("").unwrap(), "http://127.0.0.1:11434");
/// assert_eq!(ollama_base_url("0.0.0.0").unwrap(), "http://0.0.0.0:11434");
/// assert_eq!(ollama_base_url("https://ollama.example.com").unwrap(), "https://ollama.example.com:443");
/// ```
pub fn ollama_base_url(value: &str) -> Result<String, ParseHostError> {
    let err = || ParseHostError {
        text: without_credentials(value.trim()),
    };
    let trimmed = value.trim();
    let (scheme, rest, default_port) = match trimmed.split_once("://") {
        None => ("http", trimmed, "11434"),
        Some(("http", rest)) => ("http", rest, "80"),
        Some(("https", rest)) => ("https", rest, "443"),
        Some(_) => return Err(err()),
    };
    let (hostport, path) = match rest.split_once('/') {
        Some((hostport, path)) => (hostport, format!("/{path}")),
        None => (rest, String::new()),
    };
    let (credentials, hostport) = match hostport.rsplit_once('@') {
        Some((credentials, hostport)) => (format!("{credentials}@"), hostport),
        None => (String::new(), hostport),
    };
    let (host, port) = split_host_port(hostport).unwrap_or((hostport, default_port));
    let host = if host.is_empty() { "127.0.0.1" } else { host };
    let port = if port.is_empty() { default_port } else { port };
    if port.parse::<u16>().is_err() || host.contains(char::is_whitespace) {
        return Err(err());
    }
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    };
    Ok(format!(
        "{scheme}://{credentials}{host}:{port}{}",
        path.trim_end_matches('/')
    ))
}

/// `url` with any `user:password@` removed: how a host is named in logs, tables and
/// run.json.
pub fn without_credentials(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
            format!("{scheme}://{host}{path}")
        }
        None => url.rsplit_once('@').map_or(url, |(_, host)| host).to_string(),
    }
}

/// A command line with the credentials of every URL in it removed, as run.json records
/// it: each comma-separated part with a scheme (`--host=http://u:p@a,http://b`), and
/// every part of a `--host` value, which may name a host without a scheme
/// (`--host u:p@10.0.0.5`). Other arguments keep their `@` (`llm:MODEL@NAME`).
pub fn arguments_without_credentials(arguments: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut host_value_next = false;
    arguments
        .into_iter()
        .map(|argument| {
            let (flag, value) = match argument.split_once('=') {
                Some((flag, value)) if flag == "--host" => (Some(flag), value),
                _ => (None, argument.as_str()),
            };
            let is_host = std::mem::replace(&mut host_value_next, argument == "--host") || flag.is_some();
            let parts: Vec<String> = value
                .split(',')
                .map(|part| {
                    if is_host || part.contains("://") {
                        without_credentials(part)
                    } else {
                        part.to_string()
                    }
                })
                .collect();
            match flag {
                Some(flag) => format!("{flag}={}", parts.join(",")),
                None => parts.join(","),
            }
        })
        .collect()
}

/// Splits `host:port` or `[v6]:port`; `None` when there is no port.
fn split_host_port(hostport: &str) -> Option<(&str, &str)> {
    if let Some(rest) = hostport.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = after.strip_prefix(':')?;
        return Some((host, port));
    }
    let (host, port) = hostport.rsplit_once(':')?;
    if host.contains(':') {
        return None; // a bare IPv6 address
    }
    Some((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_follow_ollama_rules() {
        for (input, expected) in [
            ("", "http://127.0.0.1:11434"),
            ("127.0.0.1", "http://127.0.0.1:11434"),
            ("example.com:8080", "http://example.com:8080"),
            (":9999", "http://127.0.0.1:9999"),
            ("http://example.com", "http://example.com:80"),
            ("https://example.com/ollama/", "https://example.com:443/ollama"),
            ("http://10.0.0.5:11434", "http://10.0.0.5:11434"),
            ("[::1]:11434", "http://[::1]:11434"),
        ] {
            assert_eq!(ollama_base_url(input).unwrap(), expected, "{input}");
        }
        assert_eq!(
            ollama_base_url("http://user:pass@gpu1.lan").unwrap(),
            "http://user:pass@gpu1.lan:80"
        );
        assert_eq!(
            ollama_base_url("me:pw@10.0.0.5").unwrap(),
            "http://me:pw@10.0.0.5:11434"
        );
        let refused = ollama_base_url("http://user:secret@host:notaport")
            .unwrap_err()
            .to_string();
        assert!(!refused.contains("secret"), "{refused}");
        assert!(ollama_base_url("ftp://x").is_err());
        assert!(ollama_base_url("host:notaport").is_err());
    }

    #[test]
    fn urls_lose_their_credentials() {
        assert_eq!(
            without_credentials("https://user:secret@gpu1.lan:8000/v1"),
            "https://gpu1.lan:8000/v1"
        );
        assert_eq!(without_credentials("http://10.0.0.5:11434"), "http://10.0.0.5:11434");
        assert_eq!(without_credentials("key@host:1"), "host:1");
        assert_eq!(without_credentials("http://host/path@x"), "http://host/path@x");
        let args = |list: &[&str]| -> Vec<String> { arguments_without_credentials(list.iter().map(|a| a.to_string())) };
        assert_eq!(
            args(&["--host=http://u:pw@a:1,https://b,c@d"]),
            ["--host=http://a:1,https://b,d"]
        );
        // A --host value names hosts, with or without a scheme; nothing else loses its @.
        assert_eq!(
            args(&[
                "--host",
                "me:pw@10.0.0.5,h2",
                "--agent",
                "llm:m@direct",
                "--system",
                "prompts/me@x.txt"
            ]),
            [
                "--host",
                "10.0.0.5,h2",
                "--agent",
                "llm:m@direct",
                "--system",
                "prompts/me@x.txt"
            ]
        );
        assert_eq!(args(&["--vs", "http://u:p@x"]), ["--vs", "http://x"]);
    }
}
