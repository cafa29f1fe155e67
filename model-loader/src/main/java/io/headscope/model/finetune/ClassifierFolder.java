package io.headscope.model.finetune;

import io.headscope.model.core.HeadScopeException;
import io.headscope.model.checkpoint.FloatTensor;
import io.headscope.model.checkpoint.Safetensors;
import io.headscope.model.engine.Trainer;
import io.headscope.model.store.AtomicOutput;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.store.SafeFiles;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
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
 * <p>The folder is the user's: a write replaces the model's own files and nothing else (notes, an
 * {@code eval/} folder, the training file stay). Each epoch's files are built in a hidden staging folder
 * inside it ({@link AtomicOutput#temporaryName}) and then renamed into place one after the other,
 * {@code config.json} last, so a reader sees whole files; a staging folder left by a killed run is swept by
 * the next write (on this machine at once, from another one after a day). Without --force the folder is
 * claimed at the first write by creating it: if another run created it meanwhile, this one stops there and
 * says so, as single files do ("appeared meanwhile").
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
    AtomicOutput.refuseAnInput(out); // the model folder it trains from, the cache: inputs, never outputs
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

  /** The model's own files in a folder, in the order they are published ({@code config.json} last). */
  private static final List<String> MODEL_FILES = List.of("model.safetensors", "tokenizer.json", "vocab.txt",
      "tokenizer_config.json", "special_tokens_map.json", "config.json");

  /**
   * Writes the trainer's current weights as a model folder at {@code out} (the caller checked it with
   * {@link #check}): the first write of a run, without replacing a folder that appeared meanwhile.
   */
  public static void write(Trainer trainer, ModelFiles source, Path out) {
    writer(out, false).write(trainer, source);
  }

  /** A run's writer of {@code out}: claims the folder at its first write, replaces the model's files at each. */
  public static Writer writer(Path out, boolean force) {
    return new Writer(out, force);
  }

  /** Writes one run's epochs into one folder. */
  public static final class Writer {
    private final Path out;
    private final Path abs;
    private final boolean force;
    private boolean claimed;

    private Writer(Path out, boolean force) {
      this.out = out;
      this.abs = out.toAbsolutePath().normalize();
      this.force = force;
    }

    public void write(Trainer trainer, ModelFiles source) {
      AtomicOutput.refuseAnInput(out);
      claim();
      sweepLeftovers(abs);
      if (abs.getParent() != null) {
        AtomicOutput.sweepStaleTemporaries(abs.getParent()); // beside the folder too, as every write does
      }
      Path staging = abs.resolve(AtomicOutput.temporaryName("model"));
      try {
        Files.createDirectory(staging);
        Safetensors.write(staging.resolve("model.safetensors"), trainer.tensors(), Map.of("format", "pt"));
        trainer.config().write(staging.resolve("config.json"));
        Files.copy(source.tokenizer(), staging.resolve("tokenizer.json"));
        Path from = source.config().getParent();
        for (String name : TOKENIZER_FILES) {
          Path f = from.resolve(name);
          if (Files.isRegularFile(f)) {
            Files.copy(f, staging.resolve(name));
          }
        }
        for (String name : MODEL_FILES) {
          Path built = staging.resolve(name);
          if (Files.isRegularFile(built)) {
            refuseAnythingButAFile(abs.resolve(name));
            Files.move(built, abs.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
          }
        }
      } catch (IOException e) {
        throw new HeadScopeException("Cannot write " + out + ": " + e.getMessage() + ".", e);
      } finally {
        SafeFiles.deleteTree(staging); // empty once published
      }
    }

    /** The first write creates the folder, unless --force found one to write into. */
    private void claim() {
      if (claimed) {
        return;
      }
      if (!force || !Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) {
        try {
          Files.createDirectory(abs); // fails if another run created it since the early check
        } catch (FileAlreadyExistsException e) {
          throw new HeadScopeException(out + " already exists (another run wrote it meanwhile); use --force to "
              + "replace its model. Nothing was written.", e);
        } catch (IOException e) {
          throw new HeadScopeException("Cannot write " + out + ": " + e.getMessage() + ".", e);
        }
      }
      claimed = true;
    }
  }

  /** A model file's place may hold only a regular file: a folder or a link there is the user's, never replaced. */
  private static void refuseAnythingButAFile(Path p) {
    String what = AtomicOutput.whatIsAt(p);
    if (what != null && !what.equals("a regular file")) {
      throw new HeadScopeException(p + " is " + what + "; HeadScope replaces only its own model files there.");
    }
  }

  /** Staging folders of earlier writes whose writer is gone (killed), inside the model folder. */
  private static void sweepLeftovers(Path dir) {
    try (var entries = Files.newDirectoryStream(dir, ".model.headscope-*.part")) {
      for (Path p : entries) {
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) && AtomicOutput.isLeftover(p)) {
          SafeFiles.deleteTree(p);
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // best effort: a hidden leftover is swept next time
    }
  }

  private static boolean isEmpty(Path dir) {
    try (var s = Files.list(dir)) {
      return s.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }
}
