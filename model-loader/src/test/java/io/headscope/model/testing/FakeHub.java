package io.headscope.model.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A stand-in for the Hugging Face Hub that the tests start on 127.0.0.1 (random port) and stop.
 *
 * <p>It answers as the Hub does: {@code /{owner}/{name}/resolve/{revision}/{file}}; small files
 * directly with the Git blob SHA-1 as ETag; LFS files ({@code *.safetensors}, {@code *.bin}) with a
 * 302 to {@code /cdn/<sha256>} carrying {@code X-Linked-Etag} (the SHA-256) and {@code X-Linked-Size};
 * 404 with {@code X-Error-Code}; byte ranges on the CDN. Faults can be switched on: drop the
 * connection halfway, or send damaged bytes under the right checksum.
 */
public final class FakeHub implements AutoCloseable {
  private static final Pattern RESOLVE = Pattern.compile("/([^/]+/[^/]+)/resolve/([^/]+)/(.+)");
  private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-");

  private final HttpServer server;
  /** "owner/name@revision" -> file name -> content. */
  private final Map<String, Map<String, byte[]>> repos = new ConcurrentHashMap<>();
  private final Map<String, byte[]> cdn = new ConcurrentHashMap<>();
  private final List<String> log = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger dropsLeft = new AtomicInteger();
  private volatile String corrupt;
  private volatile boolean stall;
  private volatile boolean withoutEtags;
  private final Map<String, Boolean> truncated = new ConcurrentHashMap<>();
  private final Map<String, Long> dripMillis = new ConcurrentHashMap<>();
  private final Map<String, Integer> extraBytes = new ConcurrentHashMap<>();
  private final Map<String, Long> advertised = new ConcurrentHashMap<>();
  private final Map<String, Long> bytesSent = new ConcurrentHashMap<>();
  private final Map<String, Integer> paced = new ConcurrentHashMap<>();

  private FakeHub() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "fake-hub");
      t.setDaemon(true);
      return t;
    }));
    server.start();
  }

  public static FakeHub start() {
    try {
      return new FakeHub();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code http://127.0.0.1:<port>} */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Serves every regular file of {@code folder} as {@code repo} at {@code revision}. */
  public FakeHub serve(String repo, String revision, Path folder) {
    Map<String, byte[]> files = new ConcurrentHashMap<>();
    try (Stream<Path> list = Files.list(folder)) {
      for (Path p : list.filter(Files::isRegularFile).toList()) {
        files.put(p.getFileName().toString(), Files.readAllBytes(p));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    repos.put(repo + "@" + revision, files);
    return this;
  }

  /** The next {@code n} content downloads of LFS files send half their bytes and drop the connection. */
  public void dropNextDownloads(int n) {
    dropsLeft.set(n);
  }

  /** Sends {@code file} with one byte changed (under the true checksum); null to stop. */
  public void corrupt(String file) {
    corrupt = file;
  }

  /** Content downloads send half their bytes and then nothing more, keeping the connection open. */
  public void stall(boolean on) {
    stall = on;
  }

  /**
   * No checksums: small files come without an ETag, LFS files are answered by a plain redirect to
   * the CDN, which sends no ETag either (as a stripping proxy or a simple mirror might).
   */
  public void withoutEtags(boolean on) {
    withoutEtags = on;
  }

  /** Serves only the first half of {@code file}, consistently (HEAD and GET say the shorter length). */
  public void truncate(String file) {
    truncated.put(file, true);
  }

  /** Sends {@code file} one byte every {@code millis} ms (never stalling long enough to look dead). */
  public void drip(String file, long millis) {
    dripMillis.put(file, millis);
  }

  /** HEAD advertises the true size, but GET sends {@code extra} more bytes, with no Content-Length. */
  public void oversend(String file, int extra) {
    extraBytes.put(file, extra);
  }

  /** HEAD (and the CDN redirect's X-Linked-Size) advertises {@code length} bytes for {@code file}. */
  public void advertise(String file, long length) {
    advertised.put(file, length);
  }

  /**
   * Serves {@code file} without announcing its size (no Content-Length on HEAD, a chunked GET), at
   * {@code bytesPerSecond}, as a plain mirror streaming a file might. Use with {@link #withoutEtags}.
   */
  public void streamWithoutSize(String file, int bytesPerSecond) {
    paced.put(file, bytesPerSecond);
  }

  /** How many body bytes of {@code file} the server managed to write, over all its GETs. */
  public long bytesSent(String file) {
    return bytesSent.getOrDefault(file, 0L);
  }

  /** Every request so far, as "METHOD path [Range]". */
  public List<String> requests() {
    synchronized (log) {
      return List.copyOf(log);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }

  // --- the Hub's answers ---------------------------------------------------------------------

  private void handle(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getRawPath(); // a revision such as refs%2Fpr%2F1 is one segment
    String range = ex.getRequestHeaders().getFirst("Range");
    log.add(ex.getRequestMethod() + " " + path + (range == null ? "" : " " + range));
    try (ex) {
      if (path.startsWith("/cdn/")) {
        content(ex, path.substring(5), range);
        return;
      }
      Matcher m = RESOLVE.matcher(path);
      Map<String, byte[]> repo = m.matches() ? repos.get(m.group(1) + "@" + decode(m.group(2))) : null;
      if (repo == null) {
        boolean known = m.matches() && repos.keySet().stream().anyMatch(k -> k.startsWith(m.group(1) + "@"));
        ex.getResponseHeaders().set("X-Error-Code", known ? "RevisionNotFound" : "RepositoryNotFound");
        empty(ex, 404);
        return;
      }
      String name = m.group(3);
      byte[] data = repo.get(name);
      if (data == null) {
        ex.getResponseHeaders().set("X-Error-Code", "EntryNotFound");
        empty(ex, 404);
        return;
      }
      ex.getResponseHeaders().set("X-Repo-Commit", "0123456789abcdef0123456789abcdef01234567");
      if (truncated.containsKey(name)) {
        data = java.util.Arrays.copyOf(data, data.length / 2);
      }
      if (name.endsWith(".safetensors") || name.endsWith(".bin")) {
        String sha = hex("SHA-256", null, data);
        cdn.put(sha, data);
        if (withoutEtags) {
          ex.getResponseHeaders().set("Location", "/cdn/" + sha + "?name=" + name);
          empty(ex, 302);
          return;
        }
        ex.getResponseHeaders().set("X-Linked-Etag", "\"" + sha + "\"");
        ex.getResponseHeaders().set("X-Linked-Size", Long.toString(advertised.getOrDefault(name, (long) data.length)));
        ex.getResponseHeaders().set("ETag", "\"" + hex("SHA-1", null, sha.getBytes(StandardCharsets.UTF_8)) + "\"");
        ex.getResponseHeaders().set("Location", "/cdn/" + sha + "?name=" + name);
        empty(ex, 302);
        return;
      }
      if (!withoutEtags) {
        ex.getResponseHeaders().set("ETag", "\"" + hex("SHA-1", "blob " + data.length + "\0", data) + "\"");
      }
      body(ex, name, data, 0, false);
    }
  }

  private void content(HttpExchange ex, String sha, String range) throws IOException {
    byte[] data = cdn.get(sha);
    if (data == null) {
      empty(ex, 404);
      return;
    }
    String name = ex.getRequestURI().getQuery() == null ? "" : ex.getRequestURI().getQuery().replace("name=", "");
    ex.getResponseHeaders().set("Accept-Ranges", "bytes");
    long start = 0;
    if (range != null) {
      Matcher r = RANGE.matcher(range);
      if (!r.matches() || Long.parseLong(r.group(1)) >= data.length) {
        ex.getResponseHeaders().set("Content-Range", "bytes */" + data.length);
        empty(ex, 416);
        return;
      }
      start = Long.parseLong(r.group(1));
    }
    boolean drop = ex.getRequestMethod().equals("GET") && dropsLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    body(ex, name, data, (int) start, drop);
  }

  private void body(HttpExchange ex, String name, byte[] data, int start, boolean drop) throws IOException {
    int length = data.length - start;
    if (start > 0) {
      ex.getResponseHeaders().set("Content-Range", "bytes " + start + "-" + (data.length - 1) + "/" + data.length);
    }
    int status = start > 0 ? 206 : 200;
    Integer pace = paced.get(name);
    if (pace != null && ex.getRequestMethod().equals("HEAD")) {
      ex.sendResponseHeaders(status, -1);
      return;
    }
    if (pace != null) {
      ex.sendResponseHeaders(status, 0); // chunked
      OutputStream os = ex.getResponseBody();
      int chunk = Math.max(1, pace / 10);
      for (int i = start; i < data.length; i += chunk) {
        os.write(data, i, Math.min(chunk, data.length - i));
        os.flush();
        bytesSent.merge(name, (long) Math.min(chunk, data.length - i), Long::sum);
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted");
        }
      }
      os.close();
      return;
    }
    if (ex.getRequestMethod().equals("HEAD")) {
      ex.getResponseHeaders().set("Content-Length", Long.toString(advertised.getOrDefault(name, (long) length)));
      ex.sendResponseHeaders(status, -1);
      return;
    }
    byte[] out = data;
    if (name.equals(corrupt)) {
      out = data.clone();
      out[data.length / 2] ^= 0x5A;
    }
    OutputStream os = ex.getResponseBody();
    Long drip = dripMillis.get(name);
    if (drip != null) {
      ex.sendResponseHeaders(status, length);
      for (int i = start; i < data.length; i++) {
        os.write(out[i]);
        os.flush();
        bytesSent.merge(name, 1L, Long::sum);
        try {
          Thread.sleep(drip);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted");
        }
      }
      return;
    }
    Integer extra = extraBytes.get(name);
    if (extra != null) {
      ex.sendResponseHeaders(status, 0); // chunked: no Content-Length to hold the client to
      byte[] more = new byte[1 << 16];
      os.write(out, start, length);
      bytesSent.merge(name, (long) length, Long::sum);
      for (int sent = 0; sent < extra; sent += more.length) {
        os.write(more); // fails once the client has hung up
        bytesSent.merge(name, (long) more.length, Long::sum);
      }
      return;
    }
    ex.sendResponseHeaders(status, length);
    if (drop) {
      os.write(out, start, length / 2);
      os.flush();
      // An exception out of the handler makes the server close the socket: the client sees the
      // connection end after half the promised bytes, as when a real download breaks off.
      throw new IOException("connection dropped on purpose after " + length / 2 + " bytes");
    }
    if (stall) {
      os.write(out, start, length / 2);
      os.flush();
      try {
        Thread.sleep(60_000); // a server that stops sending but keeps the connection open
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new IOException("stalled on purpose");
    }
    os.write(out, start, length);
  }

  private static String decode(String segment) {
    return java.net.URLDecoder.decode(segment, StandardCharsets.UTF_8);
  }

  private static void empty(HttpExchange ex, int status) throws IOException {
    ex.sendResponseHeaders(status, -1);
  }

  private static String hex(String algorithm, String prefix, byte[] data) {
    try {
      MessageDigest d = MessageDigest.getInstance(algorithm);
      if (prefix != null) {
        d.update(prefix.getBytes(StandardCharsets.US_ASCII));
      }
      return HexFormat.of().formatHex(d.digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
