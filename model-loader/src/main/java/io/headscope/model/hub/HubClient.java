package io.headscope.model.hub;

import io.headscope.model.checkpoint.ShardedCheckpoint;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.CacheManifest;
import io.headscope.model.store.ProgressListener;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Fetches a BERT from the Hugging Face Hub into the local cache, file by file, and then only reads
 * the cache.
 *
 * <p>Layout: {@code <cacheRoot>/hub/<owner>/<name>/<revision>/} holds {@code config.json},
 * {@code model.safetensors} (or a large model's {@code model.safetensors.index.json} and the shards it names),
 * {@code tokenizer.json} or {@code vocab.txt}, and
 * {@code tokenizer_config.json} when the repo has one. A file appears there only after its checksum
 * matched (see {@link FileDownload}); a folder with all required files is used as it is, without
 * asking the Hub, so later runs work offline. To refresh a moving revision such as {@code main},
 * delete its folder (or name a commit: {@code hf:owner/name@<sha>}).
 *
 * <p>Nothing here listens on a port; the only network use is outgoing HTTPS to the Hub (plain HTTP
 * only to a loopback address, which is what the tests serve from).
 */
public final class HubClient {
  public static final String DEFAULT_URL = "https://huggingface.co";
  static final String CONFIG = "config.json";
  static final String WEIGHTS = "model.safetensors";
  /** A large model's weights: an index naming its shards ({@code model-00001-of-00002.safetensors}, ...). */
  static final String INDEX = ShardedCheckpoint.INDEX;
  static final String PICKLE = "pytorch_model.bin";
  static final List<String> TOKENIZERS = List.of("tokenizer.json", "vocab.txt");
  static final String TOKENIZER_CONFIG = "tokenizer_config.json";
  /** Every file a cached revision may hold besides the shards its index names (listed in its manifest). */
  static final List<String> KNOWN_FILES = List.of(CONFIG, WEIGHTS, INDEX, TOKENIZER_CONFIG, "tokenizer.json",
      "vocab.txt");

  private final URI base;
  private final Path hubRoot;
  private final boolean offline;
  private final HttpClient http;

  /**
   * @param baseUrl the Hub, e.g. {@link #DEFAULT_URL}; {@code http:} is accepted only for loopback hosts
   * @param cacheRoot HeadScope's cache; downloads go under {@code hub/} in it
   * @param offline use only what is already cached
   */
  public HubClient(String baseUrl, Path cacheRoot, boolean offline) {
    this.base = checkedBase(baseUrl);
    this.hubRoot = cacheRoot.resolve("hub");
    this.offline = offline;
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(30))
        .followRedirects(HttpClient.Redirect.NEVER) // redirects are followed by hand, see FileDownload
        .build();
  }

  /** {@code -Dheadscope.hubUrl}, else {@link #DEFAULT_URL}. */
  public static String configuredUrl() {
    String url = System.getProperty("headscope.hubUrl");
    return url == null || url.isBlank() ? DEFAULT_URL : url.trim();
  }

  /** {@code -Dheadscope.offline=true}, or the environment variable {@code HEADSCOPE_OFFLINE=1} (or true). */
  public static boolean offlineByDefault() {
    if (Boolean.parseBoolean(System.getProperty("headscope.offline", "false"))) {
      return true;
    }
    String env = System.getenv("HEADSCOPE_OFFLINE");
    return env != null && (env.equals("1") || env.equalsIgnoreCase("true") || env.equalsIgnoreCase("yes"));
  }

  public boolean isOffline() {
    return offline;
  }

  /**
   * The models downloaded before, which load without the network: every {@code owner/name/revision}
   * folder of the cache with its config and weights, sorted; a folder a download left unfinished is not
   * listed (its manifest or weights are missing), nor a name the Hub would not accept.
   */
  public List<HubModelId> cached() {
    List<HubModelId> out = new ArrayList<>();
    if (!Files.isDirectory(hubRoot)) {
      return out;
    }
    try (var owners = Files.list(hubRoot)) {
      for (Path owner : owners.sorted().toList()) {
        if (!Files.isDirectory(owner)) {
          continue;
        }
        try (var names = Files.list(owner)) {
          for (Path name : names.sorted().toList()) {
            if (!Files.isDirectory(name)) {
              continue;
            }
            try (var revisions = Files.list(name)) {
              for (Path rev : revisions.sorted().toList()) {
                if (Files.isRegularFile(rev.resolve(CONFIG)) && (Files.isRegularFile(rev.resolve(WEIGHTS))
                    || Files.isRegularFile(rev.resolve(INDEX))) && Files.isRegularFile(rev.resolve(CacheManifest.NAME))) {
                  try {
                    out.add(new HubModelId(owner.getFileName().toString(), name.getFileName().toString(),
                        rev.getFileName().toString().replace("%2F", "/")));
                  } catch (HeadScopeException notAnId) {
                    // a folder someone put there by hand: not a download of ours
                  }
                }
              }
            }
          }
        }
      }
    } catch (IOException e) {
      // an unreadable cache lists what it could read; loading says what is wrong
    }
    return out;
  }

  /** The cache folder of one model revision (it may not exist yet). */
  public Path folder(HubModelId id) {
    return hubRoot.resolve(id.owner()).resolve(id.name()).resolve(id.revisionSegment());
  }

  /** Returns the cached folder of {@code id}, downloading what is missing unless offline. */
  public Path fetch(HubModelId id, ProgressListener progress) {
    Path dir = folder(id);
    if (Files.isDirectory(dir)) {
      Map<String, String> damage = CacheManifest.check(dir, List.of(), KNOWN_FILES);
      if (!damage.isEmpty()) {
        String what = CacheManifest.describe(damage);
        if (offline) {
          throw new HeadScopeException("The cached " + id + " in " + dir + " is damaged (" + what + ") and HeadScope "
              + "is offline; run once without --offline (and without headscope.offline or HEADSCOPE_OFFLINE) to "
              + "download it again.");
        }
        progress.progress("The cached " + id + " is damaged (" + what + "); downloading it again", 0.0);
        try {
          for (String f : damage.keySet()) {
            Files.deleteIfExists(dir.resolve(f));
          }
          Files.deleteIfExists(dir.resolve(CacheManifest.NAME));
        } catch (IOException e) {
          throw new HeadScopeException("The cached " + id + " in " + dir + " is damaged (" + what
              + ") and cannot be removed: " + e.getMessage() + ".", e);
        }
      }
    }
    List<String> missing = missing(dir);
    if (missing.isEmpty()) {
      if (!CacheManifest.exists(dir)) { // a folder from before manifests, just checked by format
        CacheManifest.adopt(dir, present(dir));
      }
      return dir;
    }
    if (offline) {
      throw new HeadScopeException(id + " is not in the cache (" + String.join(", ", missing) + " missing in "
          + dir + ") and HeadScope is offline; run once without --offline (and without headscope.offline or "
          + "HEADSCOPE_OFFLINE) to download it.");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot create the download cache " + dir + ": " + e.getMessage() + ".", e);
    }
    if (!fetchFile(id, dir, CONFIG, progress)) {
      throw new HeadScopeException(id + " has no config.json on " + base.getHost()
          + ": is it a Transformers model? (checked " + url(id, CONFIG) + ")");
    }
    if (!fetchFile(id, dir, WEIGHTS, progress) && !fetchShards(id, dir, progress)) {
      if (new FileDownload(http, id, PICKLE, url(id, PICKLE), dir, progress).exists()) {
        throw new HeadScopeException(id + " has only pytorch_model.bin, no model.safetensors: that is a Python "
            + "pickle, which can run arbitrary code when loaded, so HeadScope never downloads or reads it. "
            + "Pick a revision with safetensors: many repos have a conversion in a pull request, named as "
            + "hf:" + id.repo() + "@refs/pr/N (N from the repo's Community tab); or convert it once in Python and "
            + "load the folder.");
      }
      throw new HeadScopeException(id + " has no model.safetensors nor " + INDEX + " (checked " + url(id, WEIGHTS)
          + ").");
    }
    fetchFile(id, dir, TOKENIZER_CONFIG, progress); // optional: says whether vocab.txt is lower-cased
    boolean tokenizer = false;
    for (String t : TOKENIZERS) {
      if (!tokenizer) {
        tokenizer = fetchFile(id, dir, t, progress);
      }
    }
    if (!tokenizer) {
      throw new HeadScopeException(id + " has neither tokenizer.json nor vocab.txt, so its text cannot be "
          + "tokenized.");
    }
    writeManifest(dir); // last: the folder is complete
    progress.progress("Downloaded " + id, 1.0);
    return dir;
  }

  /**
   * A large model's weights: its index, then each shard the index names, in order ("shard 2 of 3" in the
   * progress). False when the repo has no index. A shard the repo lacks is one line naming it; the shards
   * already downloaded stay in the folder, so the next attempt fetches only the rest.
   */
  private boolean fetchShards(HubModelId id, Path dir, ProgressListener progress) {
    if (!fetchFile(id, dir, INDEX, progress)) {
      return false;
    }
    List<String> shards = ShardedCheckpoint.declaredShards(dir.resolve(INDEX));
    for (int i = 0; i < shards.size(); i++) {
      String shard = shards.get(i);
      if (!Files.isRegularFile(dir.resolve(shard))) {
        progress.progress("Downloading shard " + (i + 1) + " of " + shards.size() + " (" + shard + ")",
            i / (double) shards.size());
      }
      if (!fetchFile(id, dir, shard, progress)) {
        throw new HeadScopeException(id + "'s " + INDEX + " names the shard " + shard + ", which the repo does not "
            + "have (checked " + url(id, shard) + ").");
      }
    }
    return true;
  }

  /** The files of {@code dir} its manifest lists: the known ones present and the shards its index names. */
  private static List<String> present(Path dir) {
    List<String> present = new ArrayList<>(KNOWN_FILES.stream().filter(f -> Files.isRegularFile(dir.resolve(f)))
        .toList());
    if (!Files.isRegularFile(dir.resolve(WEIGHTS)) && Files.isRegularFile(dir.resolve(INDEX))) {
      present.addAll(ShardedCheckpoint.declaredShards(dir.resolve(INDEX)));
    }
    return present;
  }

  private static void writeManifest(Path dir) {
    List<String> present = present(dir);
    try {
      CacheManifest.write(dir, present);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot write the manifest of the download cache " + dir + ": " + e.getMessage()
          + ".", e);
    }
  }

  /** The required files not yet in {@code dir}; empty when the model is complete. */
  static List<String> missing(Path dir) {
    List<String> missing = new ArrayList<>();
    if (!Files.isRegularFile(dir.resolve(CONFIG))) {
      missing.add(CONFIG);
    }
    if (!Files.isRegularFile(dir.resolve(WEIGHTS))) {
      if (!Files.isRegularFile(dir.resolve(INDEX))) {
        missing.add(WEIGHTS);
      } else {
        try {
          ShardedCheckpoint.declaredShards(dir.resolve(INDEX)).stream()
              .filter(f -> !Files.isRegularFile(dir.resolve(f))).forEach(missing::add);
        } catch (HeadScopeException unreadable) { // an index cut short: fetched again
          missing.add(INDEX);
        }
      }
    }
    if (TOKENIZERS.stream().noneMatch(t -> Files.isRegularFile(dir.resolve(t)))) {
      missing.add("tokenizer.json or vocab.txt");
    }
    return missing;
  }

  /** Downloads one file unless cached; false when the repo has no such file. */
  private boolean fetchFile(HubModelId id, Path dir, String file, ProgressListener progress) {
    if (Files.isRegularFile(dir.resolve(file))) {
      return true;
    }
    return new FileDownload(http, id, file, url(id, file), dir, progress).run();
  }

  URI url(HubModelId id, String file) {
    String b = base.toString();
    if (b.endsWith("/")) {
      b = b.substring(0, b.length() - 1);
    }
    return URI.create(b + "/" + id.repo() + "/resolve/" + id.revisionSegment() + "/" + file);
  }

  private static URI checkedBase(String url) {
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new HeadScopeException("The Hub address \"" + url + "\" (headscope.hubUrl) is not a URL.");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (uri.getHost() == null || !(scheme.equals("https") || scheme.equals("http") && isLoopback(uri.getHost()))) {
      throw new HeadScopeException("The Hub address \"" + url + "\" (headscope.hubUrl) must be an https:// URL "
          + "(plain http only for 127.0.0.1 or localhost).");
    }
    return uri;
  }

  static boolean isLoopback(String host) {
    return host.equals("127.0.0.1") || host.equals("localhost") || host.equals("[::1]") || host.equals("::1");
  }

  static Optional<String> header(HttpResponse<?> r, String name) {
    return r.headers().firstValue(name);
  }

  static HttpRequest.Builder request(URI uri) {
    return HttpRequest.newBuilder(uri).header("User-Agent", "HeadScope/0.1 (BERT attention viewer)")
        .timeout(Duration.ofSeconds(60));
  }

  /**
   * A request to {@code uri} that carries {@code Authorization: Bearer <token>} when a token is given and {@code uri}
   * is on the Hub itself ({@link #authorization}): gated models (Llama, Gemma, Mistral) answer 401 without one.
   */
  static HttpRequest.Builder request(URI uri, URI hub, String token) {
    HttpRequest.Builder b = request(uri);
    authorization(uri, hub, token).ifPresent(v -> b.header("Authorization", v));
    return b;
  }

  /**
   * The {@code Authorization} header's value for a request to {@code target}: {@code Bearer <token>} only when
   * {@code target} has the Hub's own scheme, host and port. The Hub answers a file of a gated repo with a redirect
   * to a signed address on its CDN, which needs no token; sending it there, or to any other host a redirect names,
   * would hand the user's credential to a server that has no use for it, so it is never sent off the Hub (as
   * {@code huggingface_hub} does). Empty without a token.
   */
  static Optional<String> authorization(URI target, URI hub, String token) {
    if (token == null || token.isBlank() || !sameOrigin(target, hub)) {
      return Optional.empty();
    }
    return Optional.of("Bearer " + token);
  }

  private static boolean sameOrigin(URI a, URI b) {
    return a.getScheme() != null && a.getHost() != null && b.getHost() != null
        && a.getScheme().equalsIgnoreCase(b.getScheme()) && a.getHost().equalsIgnoreCase(b.getHost())
        && port(a) == port(b);
  }

  private static int port(URI u) {
    return u.getPort() >= 0 ? u.getPort() : u.getScheme().equalsIgnoreCase("https") ? 443 : 80;
  }

  /**
   * {@code HF_TOKEN} from the environment, as the Hugging Face libraries read it, or null when unset or blank.
   * Refused in one line (without echoing it) when it holds a character a header cannot carry. Never logged.
   */
  static String token() {
    return checkedToken(System.getenv("HF_TOKEN"));
  }

  static String checkedToken(String t) {
    if (t == null || t.isBlank()) {
      return null;
    }
    String token = t.trim();
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        throw new HeadScopeException("HF_TOKEN holds a space, a line break or a non-ASCII character, which no Hugging "
            + "Face token has; set it to the token alone.");
      }
    }
    return token;
  }

  /**
   * The one line for a 401 or 403 from the Hub: without a token, that the model is gated or private and {@code
   * HF_TOKEN} is how to read it; with one, that this token has no access. The token itself is never in it.
   */
  static String refusal(String host, HubModelId id, int status, boolean withToken) {
    return withToken
        ? host + " refused " + id + " (HTTP " + status + ") with the token in HF_TOKEN: the model is gated or private "
            + "and this token may not read it (accept the model's terms on its page, or use another token)."
        : host + " refused " + id + " (HTTP " + status + "): the model is private or gated: set HF_TOKEN to a "
            + "Hugging Face token that may read it (and accept the model's terms on its page).";
  }
}
