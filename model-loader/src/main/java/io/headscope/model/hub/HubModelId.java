package io.headscope.model.hub;

import io.headscope.model.core.HeadScopeException;
import java.util.regex.Pattern;

/**
 * A model on the Hugging Face Hub as the user names it: {@code hf:org/name} or {@code hf:org/name@revision}
 * (a branch, tag or commit; {@code main} when absent).
 *
 * <p>Every part is checked against the Hub's own naming rules before it is used in a URL or a cache
 * path, so a name such as {@code hf:../../etc} can reach neither another server path nor another folder.
 */
public record HubModelId(String owner, String name, String revision) {
  public static final String PREFIX = "hf:";
  public static final String DEFAULT_REVISION = "main";

  /** The Hub's repo-name characters; "." and ".." are refused separately. */
  private static final Pattern PART = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,95}");
  /**
   * Branch, tag or commit without "/" (nested branches are rare), or a pull request's ref
   * {@code refs/pr/N}, where the Hub keeps e.g. a bot's safetensors conversion of a pickle-only repo.
   */
  private static final Pattern REVISION = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}|refs/pr/[1-9][0-9]{0,8}");

  public HubModelId {
    check(owner, PART, "owner");
    check(name, PART, "name");
    check(revision, REVISION, "revision");
  }

  public static boolean isHubSpec(String spec) {
    return spec != null && spec.trim().startsWith(PREFIX);
  }

  /** Parses {@code hf:org/name[@revision]}; the owner is required (as for every model on the Hub today). */
  public static HubModelId parse(String spec) {
    String s = spec.trim();
    if (s.startsWith(PREFIX)) {
      s = s.substring(PREFIX.length());
    }
    String revision = DEFAULT_REVISION;
    int at = s.lastIndexOf('@');
    if (at >= 0) {
      revision = s.substring(at + 1);
      s = s.substring(0, at);
    }
    int slash = s.indexOf('/');
    if (slash < 0 || slash != s.lastIndexOf('/')) {
      throw new HeadScopeException("\"" + spec + "\" is not a Hugging Face model id: write hf:owner/name "
          + "(e.g. hf:textattack/bert-base-uncased-MRPC), optionally with @revision (a branch, tag, commit or refs/pr/N).");
    }
    return new HubModelId(s.substring(0, slash), s.substring(slash + 1), revision);
  }

  /** The revision as one URL path segment or folder name: {@code refs/pr/1} becomes {@code refs%2Fpr%2F1}. */
  public String revisionSegment() {
    return revision.replace("/", "%2F");
  }

  /** {@code owner/name}, as in the Hub's URLs. */
  public String repo() {
    return owner + "/" + name;
  }

  @Override
  public String toString() {
    return PREFIX + repo() + (revision.equals(DEFAULT_REVISION) ? "" : "@" + revision);
  }

  private static void check(String part, Pattern allowed, String what) {
    if (part == null || !allowed.matcher(part).matches() || part.contains("..")) {
      throw new HeadScopeException("\"" + part + "\" is not a valid Hugging Face model " + what
          + ": use letters, digits, '.', '_' and '-' (e.g. hf:textattack/bert-base-uncased-MRPC).");
    }
  }
}
