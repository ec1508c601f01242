package io.tensafe.tgsp.crypto;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.NamedParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;

/**
 * The four asymmetric algorithms of TGSP v2, all from the JDK's own providers (JDK 24+): Ed25519
 * and ML-DSA-65 (FIPS 204) sign, X25519 and ML-KEM-768 (FIPS 203) wrap data keys. Public keys
 * travel as X.509 SubjectPublicKeyInfo, private keys as PKCS#8.
 */
enum Algorithms {
  ED25519("Ed25519", NamedParameterSpec.ED25519, 44),
  ML_DSA_65("ML-DSA-65", NamedParameterSpec.ML_DSA_65, 1974),
  X25519("X25519", NamedParameterSpec.X25519, 44),
  ML_KEM_768("ML-KEM-768", NamedParameterSpec.ML_KEM_768, 1206);

  private final String jcaName;
  private final NamedParameterSpec spec;
  private final int publicKeyBytes;

  Algorithms(String jcaName, NamedParameterSpec spec, int publicKeyBytes) {
    this.jcaName = jcaName;
    this.spec = spec;
    this.publicKeyBytes = publicKeyBytes;
  }

  String jcaName() {
    return jcaName;
  }

  KeyPair generate(SecureRandom random) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance(jcaName);
      generator.initialize(spec, random);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(jcaName + " is required (JDK 24 or later)", e);
    }
  }

  /** Decodes an X.509 public key of exactly this algorithm and parameter set. */
  PublicKey publicKey(byte[] encoded) throws KeyFileException {
    if (encoded.length != publicKeyBytes) {
      throw new KeyFileException(
          jcaName + " public key is " + encoded.length + " bytes, expected " + publicKeyBytes);
    }
    try {
      return KeyFactory.getInstance(jcaName).generatePublic(new X509EncodedKeySpec(encoded));
    } catch (GeneralSecurityException e) {
      throw new KeyFileException("not a valid " + jcaName + " public key: " + e.getMessage(), e);
    }
  }

  /** Decodes a PKCS#8 private key of exactly this algorithm (at most 8 KiB). */
  PrivateKey privateKey(byte[] encoded) throws KeyFileException {
    if (encoded.length > 8192) {
      throw new KeyFileException(jcaName + " private key is over 8 KiB");
    }
    try {
      return KeyFactory.getInstance(jcaName).generatePrivate(new PKCS8EncodedKeySpec(encoded));
    } catch (GeneralSecurityException e) {
      throw new KeyFileException("not a valid " + jcaName + " private key: " + e.getMessage(), e);
    }
  }
}
