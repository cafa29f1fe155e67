package io.headscope.model.finetune;

import io.headscope.model.core.HeadScopeException;
import io.headscope.model.checkpoint.FloatTensor;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.engine.Trainer;
import io.headscope.model.store.AtomicOutput;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.store.SafeFiles;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

/**
 * A fine-tuned classifier written as a Hugging Face folder: {@code config.json} (with
 * {@code id2label}), {@code model.safetensors} (float32, {@code BertForSequenceClassification} names)
 * and the source model's tokenizer files.
 *
 * <p>The folder is built as a hidden temporary folder beside the target and renamed into place only
 * when complete. Replacing an earlier epoch's folder moves it aside first, then renames the new one
 * in, then deletes the old one: a reader never sees a half-written folder (between the two renames the
 * name is briefly absent, since Linux cannot rename over a non-empty folder).
 */
public final class ClassifierFolder {
  /** Copied from the source model when present; {@code tokenizer.json} always (generated if need be). */
  private static final List<String> TOKENIZER_FILES =
      List.of("vocab.txt", "tokenizer_config.json", "special_tokens_map.json");

  private ClassifierFolder() {}

  /**
   * Refuses an output folder that could not be written, before any training: an existing one
   * without {@code force}, anything but a model folder (or an empty one) even with it, a missing or
   * read-only parent folder.
   */
  public static void check(Path out, boolean force) {
    Path abs = out.toAbsolutePath().normalize();
    String what = AtomicOutput.whatIsAt(abs);
    if (what != null) {
      if (!"a folder".equals(what)) {
        throw new HeadScopeException(out + " is " + what + "; give the name of a folder to create.");
      }
      if (!force) {
        throw new HeadScopeException(out + " already exists; use --force to replace it.");
      }
      if (!isEmpty(abs) && !Files.isRegularFile(abs.resolve("config.json"))) {
        throw new HeadScopeException(out + " is a folder that holds no model (no config.json); HeadScope replaces "
            + "only a model folder, even with --force: give another name.");
      }
    }
    Path parent = abs.getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      throw new HeadScopeException("Cannot write " + out + ": the folder " + parent + " does not exist.");
    }
    Path probe = parent.resolve(".headscope-probe-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
    try {
      Files.createDirectory(probe);
      Files.delete(probe);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot write " + out + ": cannot create a folder in " + parent + " ("
          + (e instanceof java.nio.file.AccessDeniedException ? "permission denied" : e.getMessage()) + ").");
    }
  }

  /**
   * Writes the trainer's current weights as a model folder at {@code out}, replacing what is there
   * (the caller checked it with {@link #check}).
   */
  public static void write(Trainer trainer, ModelFiles source, Path out) {
    Path abs = out.toAbsolutePath().normalize();
    Path temp = abs.resolveSibling("." + abs.getFileName() + ".headscope-" + ProcessHandle.current().pid() + "-"
        + System.nanoTime() + ".part");
    try {
      Files.createDirectory(temp);
      List<FloatTensor> tensors = trainer.tensors();
      Safetensors.write(temp.resolve("model.safetensors"), tensors, Map.of("format", "pt"));
      trainer.config().write(temp.resolve("config.json"));
      Files.copy(source.tokenizer(), temp.resolve("tokenizer.json"));
      Path from = source.config().getParent();
      for (String name : TOKENIZER_FILES) {
        Path f = from.resolve(name);
        if (Files.isRegularFile(f)) {
          Files.copy(f, temp.resolve(name));
        }
      }
      publish(temp, abs);
    } catch (IOException e) {
      throw new HeadScopeException("Cannot write " + out + ": " + e.getMessage() + ".", e);
    } finally {
      SafeFiles.deleteTree(temp); // gone already when published
    }
  }

  private static void publish(Path temp, Path target) throws IOException {
    Path old = null;
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      old = target.resolveSibling("." + target.getFileName() + ".headscope-old-" + System.nanoTime());
      Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
    }
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, target);
    } catch (IOException e) {
      if (old != null && !Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
        Files.move(old, target, StandardCopyOption.ATOMIC_MOVE); // put the earlier one back
        old = null;
      }
      throw e;
    }
    SafeFiles.deleteTree(old);
  }

  private static boolean isEmpty(Path dir) {
    try (var s = Files.list(dir)) {
      return s.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }
}
