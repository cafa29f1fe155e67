package io.headscope.model.hub;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * What a downloaded file is checked against, read from the Hub's ETag.
 *
 * <p>The Hub names every file by a hash in its ETag: for a Git LFS file (the weights) the
 * {@code X-Linked-Etag} is the SHA-256 of the content; for a small file kept in Git itself (config.json,
 * vocab.txt, tokenizer.json) the ETag is the Git blob id, a SHA-1 of {@code "blob <size>\0" + content}.
 * Both are checked. An ETag that is neither (a proxy's weak tag, say) leaves only the size to check;
 * such a small file is then also parsed when loaded, so a damaged one still fails loudly.
 */
record ExpectedHash(Kind kind, String hex, long size) {
  enum Kind {
    SHA256,
    GIT_BLOB_SHA1,
    NONE
  }

  /**
   * @param etag the {@code X-Linked-Etag} (LFS) or {@code ETag} header, quoted or not, weak or not
   * @param size the advertised size in bytes, or -1 when unknown
   */
  static ExpectedHash fromEtag(String etag, long size) {
    String e = etag == null ? "" : etag.trim();
    if (e.startsWith("W/")) {
      e = e.substring(2);
    }
    e = e.replace("\"", "").toLowerCase(Locale.ROOT);
    if (e.matches("[0-9a-f]{64}")) {
      return new ExpectedHash(Kind.SHA256, e, size);
    }
    if (e.matches("[0-9a-f]{40}") && size >= 0) {
      return new ExpectedHash(Kind.GIT_BLOB_SHA1, e, size);
    }
    return new ExpectedHash(Kind.NONE, "", size);
  }

  /** A digest fed with the file's bytes from the start (a Git blob's header goes first). */
  MessageDigest newDigest() {
    try {
      return switch (kind) {
        case SHA256 -> MessageDigest.getInstance("SHA-256");
        case GIT_BLOB_SHA1 -> {
          MessageDigest d = MessageDigest.getInstance("SHA-1");
          d.update(("blob " + size + "\0").getBytes(StandardCharsets.US_ASCII));
          yield d;
        }
        case NONE -> null;
      };
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Null when the digest matches; otherwise what was expected and what arrived, for the message. */
  String mismatch(MessageDigest digest, long actualSize) {
    if (size >= 0 && actualSize != size) {
      return "expected " + size + " bytes, got " + actualSize;
    }
    if (kind == Kind.NONE) {
      return null;
    }
    String actual = HexFormat.of().formatHex(digest.digest());
    return actual.equals(hex) ? null
        : "expected " + (kind == Kind.SHA256 ? "SHA-256 " : "Git blob SHA-1 ") + hex + ", got " + actual;
  }

  /** A short tag for naming the partial file, so a new version on the server is not appended to an old part. */
  String tag() {
    return kind == Kind.NONE ? "size" + size : hex.substring(0, 16);
  }
}
