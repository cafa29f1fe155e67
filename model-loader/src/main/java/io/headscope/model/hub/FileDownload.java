package io.headscope.model.hub;

import io.headscope.model.core.HeadScopeException;
import io.headscope.model.store.CacheManifest;
import io.headscope.model.store.ProgressListener;
import io.headscope.model.store.SafeFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One file from the Hub: asks for its checksum (HEAD), downloads into a hidden {@code .part} file
 * next to its place in the cache, resumes with a {@code Range} request when the connection drops,
 * checks size and hash, and only then renames it into place. A file that fails the check is deleted.
 *
 * <p>Redirects are followed by hand: the Hub answers an LFS file with a redirect to its CDN whose
 * headers carry the checksum ({@code X-Linked-Etag}, {@code X-Linked-Size}), which an automatic
 * redirect would hide.
 */
final class FileDownload {
  /** Tries per file; each retry resumes where the last one stopped. */
  static final int ATTEMPTS = 4;
  private static final int MAX_REDIRECTS = 5;
  /** The slowest rate a file's deadline allows for: 100 kB/s. */
  static final long MIN_RATE_BYTES_PER_SECOND = 100_000;
  /** Space left free on the cache's disk after a download. */
  private static final long RESERVE = 16L << 20;
  private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+|\\*)");

  private final HttpClient http;
  private final HubModelId id;
  private final String file;
  private final URI url;
  private final Path dir;
  private final ProgressListener progress;
  /** {@code HF_TOKEN}, or null: sent to the Hub's own host only ({@link HubClient#authorization}). */
  private final String token;

  /**
   * A download given up for the server's behaviour (past its deadline, longer than announced): its part
   * file is deleted. Other failures (a dropped network) keep the part for the next run to resume.
   */
  private static final class Refused extends HeadScopeException {
    Refused(String message) {
      super(message);
    }
  }

  /** Where to GET the content and what it must hash to. */
  private record Meta(URI content, ExpectedHash expected) {}

  FileDownload(HttpClient http, HubModelId id, String file, URI url, Path dir, ProgressListener progress) {
    this.http = http;
    this.id = id;
    this.file = file;
    this.url = url;
    this.dir = dir;
    this.progress = progress;
    this.token = HubClient.token();
  }

  /** Whether the repo has this file (a HEAD request; nothing is downloaded). */
  boolean exists() {
    return head() != null;
  }

  /** Downloads, verifies and publishes the file; false when the repo has no such file. */
  boolean run() {
    Meta meta = head();
    if (meta == null) {
      return false;
    }
    Path part = dir.resolve("." + file + "." + meta.expected().tag() + ".part");
    checkFreeSpace(meta.expected().size(), sizeOf(part));
    long size = meta.expected().size();
    long limitSeconds = deadlineSeconds(size);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limitSeconds);
    IOException last = null;
    try {
      for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
        try {
          transfer(meta, part, deadline, limitSeconds);
          last = null;
          break;
        } catch (IOException e) {
          last = e; // keep the part: the next attempt resumes from its end
        }
      }
    } catch (Refused e) {
      SafeFiles.deleteTree(part); // too slow or too long: what came is not worth resuming
      throw e;
    }
    if (last != null) {
      throw new HeadScopeException("Downloading " + file + " of " + id + " failed " + ATTEMPTS + " times (" + last
          + "); the " + sizeOf(part) + " bytes received are kept in the cache and the next run resumes from there.",
          last);
    }
    verifyAndPublish(meta.expected(), part);
    return true;
  }

  /** Refuses a download the cache's disk cannot hold, before any byte is fetched. */
  private void checkFreeSpace(long size, long have) {
    if (size < 0) {
      return;
    }
    long usable;
    try {
      usable = Files.getFileStore(dir).getUsableSpace();
    } catch (IOException e) {
      return; // cannot tell: the write itself will fail cleanly if the disk fills
    }
    long needed = size - have + RESERVE;
    if (needed > usable) {
      throw new HeadScopeException(file + " of " + id + " is " + human(size) + " but the disk of the cache " + dir
          + " has only " + human(usable) + " free; nothing was downloaded. Free some space or set headscope.cache "
          + "(or HEADSCOPE_CACHE) to a larger disk.");
    }
  }

  /**
   * The most time one file may take over all its attempts: {@code max(floor, size / 100 kB/s)}, where the
   * floor is {@code -Dheadscope.hubDeadlineSeconds} (default 60); for a file of unknown size, the floor
   * plus a second per 100 kB received. A server that sends a byte now and then never stalls long enough
   * for the stall limit, but cannot keep a download going forever.
   */
  static long deadlineSeconds(long size) {
    long floor;
    try {
      floor = Math.max(1, Long.parseLong(System.getProperty("headscope.hubDeadlineSeconds", "60")));
    } catch (NumberFormatException e) {
      floor = 60;
    }
    return Math.max(floor, size < 0 ? 0 : size / MIN_RATE_BYTES_PER_SECOND);
  }

  /** "12.6 KB", "440.5 MB", "10.0 GB" (decimal units, as the progress line). */
  static String human(long bytes) {
    if (bytes < 1_000_000) {
      return String.format(Locale.ROOT, "%.1f KB", bytes / 1e3);
    }
    if (bytes < 1_000_000_000) {
      return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }
    return String.format(Locale.ROOT, "%.1f GB", bytes / 1e9);
  }

  private void verifyAndPublish(ExpectedHash expected, Path part) {
    String mismatch;
    try {
      MessageDigest digest = expected.newDigest();
      if (digest != null) {
        byte[] buf = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(part)) {
          for (int n; (n = in.read(buf)) > 0; ) {
            digest.update(buf, 0, n);
          }
        }
      }
      mismatch = expected.mismatch(digest, Files.size(part));
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read the downloaded " + part + ": " + e.getMessage() + ".", e);
    }
    if (mismatch != null) {
      SafeFiles.deleteTree(part);
      throw new HeadScopeException(file + " downloaded from " + id + " does not match the Hub's checksum ("
          + mismatch + "); it was deleted and nothing was cached. Try again; if this repeats, the server at "
          + url.getHost() + " is sending a damaged file.");
    }
    if (expected.kind() == ExpectedHash.Kind.NONE) {
      String damage = CacheManifest.formatDamage(file, part);
      if (damage != null) {
        SafeFiles.deleteTree(part);
        throw new HeadScopeException(file + " downloaded from " + id + " came without a checksum (no ETag from "
            + url.getHost() + ") and " + damage + "; it was deleted and nothing was cached.");
      }
    }
    try {
      SafeFiles.publish(part, dir.resolve(file));
    } catch (IOException e) {
      throw new HeadScopeException("Cannot move " + file + " into the cache " + dir + ": " + e.getMessage() + ".", e);
    }
  }

  // --- HTTP ----------------------------------------------------------------------------------

  /** The checksum and the content address, or null when the repo has no such file. */
  private Meta head() {
    URI u = url;
    for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
      HttpResponse<Void> r = send(HubClient.request(u, url, token).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
          HttpResponse.BodyHandlers.discarding());
      int status = r.statusCode();
      if (status == 404) {
        String code = HubClient.header(r, "X-Error-Code").orElse("");
        if (code.equals("RepositoryNotFound")) {
          throw new HeadScopeException(id + " does not exist on " + url.getHost() + " (or it is private).");
        }
        if (code.equals("RevisionNotFound")) {
          throw new HeadScopeException(id.repo() + " has no revision \"" + id.revision() + "\".");
        }
        return null;
      }
      if (status == 401 || status == 403) {
        throw new HeadScopeException(HubClient.refusal(url.getHost(), id, status, token != null));
      }
      String linkedEtag = HubClient.header(r, "X-Linked-Etag").orElse(null);
      long linkedSize = longHeader(r, "X-Linked-Size").orElse(-1);
      if (status >= 300 && status < 400) {
        URI next = location(u, r);
        if (linkedEtag != null) {
          return new Meta(next, ExpectedHash.fromEtag(linkedEtag, linkedSize)); // LFS file on the CDN
        }
        u = next; // a renamed repo: ask again at the new address
        continue;
      }
      if (status >= 200 && status < 300) {
        String etag = linkedEtag != null ? linkedEtag : HubClient.header(r, "ETag").orElse(null);
        long size = linkedEtag != null ? linkedSize : longHeader(r, "Content-Length").orElse(-1);
        return new Meta(u, ExpectedHash.fromEtag(etag, size));
      }
      throw new HeadScopeException(url.getHost() + " answered HTTP " + status + " for " + u + ".");
    }
    throw new HeadScopeException(url.getHost() + " redirected " + url + " more than " + MAX_REDIRECTS + " times.");
  }

  /** Brings {@code part} up to the full length, resuming from its current end where the server allows. */
  private void transfer(Meta meta, Path part, long deadline, long limitSeconds) throws IOException {
    long size = meta.expected().size();
    long have = sizeOf(part);
    if (size >= 0 && have > size) {
      Files.delete(part); // longer than the file: not a prefix of it
      have = 0;
    }
    if (size >= 0 && have == size) {
      return; // complete from an earlier run; verified next
    }
    URI u = meta.content();
    for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
      HttpRequest.Builder req = HubClient.request(u, url, token).GET();
      if (have > 0) {
        req.header("Range", "bytes=" + have + "-");
      }
      HttpResponse<TimedBody> r = send(req.build(), TimedBody.handler(stallSeconds()));
      int status = r.statusCode();
      TimedBody body = r.body();
      if (status < 200 || status > 299) {
        body.cancel(); // a redirect's or an error's body is not wanted
      }
      if (status >= 300 && status < 400) {
        u = location(u, r);
        continue;
      }
      if (status == 416) {
        Files.deleteIfExists(part); // the part does not fit the file any more: start over
        throw new IOException("the server refused to resume (HTTP 416); starting over");
      }
      boolean append = false;
      if (status == 206) {
        Matcher m = CONTENT_RANGE.matcher(HubClient.header(r, "Content-Range").orElse(""));
        append = m.matches() && Long.parseLong(m.group(1)) == have;
        if (!append) {
          body.cancel();
          Files.deleteIfExists(part);
          throw new IOException("the server resumed at the wrong place; starting over");
        }
      } else if (status != 200) {
        throw new HeadScopeException(u.getHost() + " answered HTTP " + status + " when downloading " + file
            + " of " + id + ".");
      }
      copy(body, part, append ? have : 0, size, deadline, limitSeconds);
      long got = sizeOf(part);
      if (size >= 0 && got < size) {
        throw new IOException("the connection closed after " + got + " of " + size + " bytes");
      }
      return;
    }
    throw new HeadScopeException(u.getHost() + " redirected " + file + " more than " + MAX_REDIRECTS + " times.");
  }

  private void copy(TimedBody body, Path part, long start, long size, long deadline, long limitSeconds)
      throws IOException {
    StandardOpenOption mode = start > 0 ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING;
    long done = start;
    double reported = -1;
    try (FileChannel out = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE, mode)) {
      for (ByteBuffer chunk; (chunk = next(body, deadline, limitSeconds, done, size)) != null; ) {
        if (size >= 0 && done + chunk.remaining() > size) {
          throw new Refused(url.getHost() + " sent more of " + file + " of " + id + " than the "
              + size + " bytes it announced; HeadScope stopped reading at " + size + " bytes and cached nothing.");
        }
        done += chunk.remaining();
        while (chunk.hasRemaining()) {
          out.write(chunk);
        }
        double fraction = size > 0 ? (double) done / size : -1;
        // about every 1%, and always the last chunk, so the last report says all of it arrived
        if (fraction < 0 || fraction - reported >= 0.01 || done == size) {
          reported = fraction;
          progress.progress("Downloading " + file + " of " + id + " (" + amount(done, size) + ")",
              Math.min(fraction, 0.999));
        }
      }
    } catch (IOException | RuntimeException e) {
      body.cancel();
      throw e;
    }
  }

  /** The next chunk, waiting no longer than the stall limit nor past the file's deadline. */
  private ByteBuffer next(TimedBody body, long deadline, long limitSeconds, long done, long size) throws IOException {
    if (size < 0) {
      // Unknown size: the floor, plus a second for every 100 kB that arrived (an honest stream of any
      // length goes on; a drip does not).
      deadline += TimeUnit.SECONDS.toNanos(done / MIN_RATE_BYTES_PER_SECOND);
      limitSeconds += done / MIN_RATE_BYTES_PER_SECOND;
    }
    long left = deadline - System.nanoTime();
    if (left > 0) {
      try {
        return body.next(Math.min(left, TimeUnit.SECONDS.toNanos(stallSeconds())));
      } catch (TimedBody.NoData e) {
        if (deadline - System.nanoTime() > 0) {
          throw e; // a stall: retried, resuming from here
        }
      }
    }
    throw new Refused("Downloading " + file + " of " + id + " took longer than " + limitSeconds
        + " s, the limit for " + (size < 0 ? "a file of unknown size" : "a file of " + human(size)) + " (" + done
        + " bytes received from " + url.getHost() + "); nothing was cached. Try again later; the limit's floor is "
        + "-Dheadscope.hubDeadlineSeconds.");
  }

  /** "3.2 of 12.6 KB" under a megabyte, "120.5 of 440.5 MB" above. */
  static String amount(long done, long size) {
    boolean kb = size >= 0 ? size < 1_000_000 : done < 1_000_000;
    double unit = kb ? 1e3 : 1e6;
    return String.format(Locale.ROOT, "%.1f of %s %s", done / unit,
        size >= 0 ? String.format(Locale.ROOT, "%.1f", size / unit) : "?", kb ? "KB" : "MB");
  }

  /** How long a download may receive nothing before it is retried: {@code -Dheadscope.hubStallSeconds}, default 60. */
  static long stallSeconds() {
    try {
      return Math.max(1, Long.parseLong(System.getProperty("headscope.hubStallSeconds", "60")));
    } catch (NumberFormatException e) {
      return 60;
    }
  }

  private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    try {
      return http.send(request, handler);
    } catch (ConnectException e) {
      throw new HeadScopeException("Cannot reach " + request.uri().getHost() + " to download " + id
          + " (no connection); use --offline to work with cached models only.", e);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot reach " + request.uri().getHost() + " to download " + id + ": " + e
          + ".", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HeadScopeException("The download of " + id + " was interrupted.", e);
    }
  }

  /** The redirect target, refused unless it is HTTPS (or loopback HTTP, for tests). */
  private URI location(URI from, HttpResponse<?> r) {
    String loc = HubClient.header(r, "Location").orElseThrow(() -> new HeadScopeException(
        from.getHost() + " sent a redirect without a Location for " + file + " of " + id + "."));
    URI next = from.resolve(loc);
    String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
    if (next.getHost() == null
        || !(scheme.equals("https") || scheme.equals("http") && HubClient.isLoopback(next.getHost()))) {
      throw new HeadScopeException(from.getHost() + " redirected " + file + " of " + id + " to " + loc
          + ", which is not HTTPS; refusing to download it.");
    }
    return next;
  }

  private static OptionalLong longHeader(HttpResponse<?> r, String name) {
    try {
      return r.headers().firstValue(name).map(v -> OptionalLong.of(Long.parseLong(v.trim())))
          .orElse(OptionalLong.empty());
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  private static long sizeOf(Path p) {
    try {
      return Files.exists(p) ? Files.size(p) : 0;
    } catch (IOException e) {
      return 0;
    }
  }
}
