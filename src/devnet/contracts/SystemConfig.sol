// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title SystemConfig (basalt devnet)
/// @notice The rollup parameters a local rollup's L1 controls: the part of the OP Stack
///         SystemConfig that L2 derivation reads. Each setter stores its value and emits the real
///         `ConfigUpdate` event (version 0) with the data encoding of the OP contract, so a rollup
///         node applies the same updates as from the SystemConfig on Ethereum. No proxy, no
///         resource config, no L1 contract registry; the owner is set at construction.
/// @dev    Facts from the OP specs (system-config.md and the Ecotone, Holocene, Isthmus and Jovian
///         system-config pages) and the SystemConfig's interface; see src/devnet/README.md.
contract SystemConfig {
    /// @notice The kinds of update, numbered as derivation reads them (`updateType`).
    enum UpdateType {
        BATCHER,
        FEE_SCALARS,
        GAS_LIMIT,
        UNSAFE_BLOCK_SIGNER,
        EIP_1559_PARAMS,
        OPERATOR_FEE_PARAMS,
        MIN_BASE_FEE,
        DA_FOOTPRINT_GAS_SCALAR
    }

    /// @notice The values the contract starts with (its constructor's argument).
    struct InitialConfig {
        bytes32 batcherHash;
        uint32 basefeeScalar;
        uint32 blobbasefeeScalar;
        uint64 gasLimit;
        address unsafeBlockSigner;
        /// @dev 0 with `eip1559Elasticity` 0: left unset (the rollup's defaults apply).
        uint32 eip1559Denominator;
        uint32 eip1559Elasticity;
        uint32 operatorFeeScalar;
        uint64 operatorFeeConstant;
        uint64 minBaseFee;
        uint16 daFootprintGasScalar;
    }

    /// @notice Version of the `ConfigUpdate` encoding (the only one derivation accepts).
    uint256 public constant VERSION = 0;

    /// @notice Smallest L2 gas limit: the OP default resource config's deposit gas per block
    ///         (20,000,000) plus its system transaction gas (1,000,000).
    uint64 public constant MINIMUM_GAS_LIMIT = 21_000_000;

    /// @notice Largest L2 gas limit (the OP SystemConfig's bound).
    uint64 public constant MAXIMUM_GAS_LIMIT = 500_000_000;

    /// @notice Version byte of a fee scalar that carries the base fee and blob base fee scalars.
    uint256 internal constant ECOTONE_SCALAR_VERSION = 1;

    /// @notice The only account allowed to change the configuration.
    address public owner;

    /// @notice Pre-Ecotone L1 fee overhead; 0 here (the Ecotone encoding has none).
    uint256 public overhead;

    /// @notice Versioned fee scalar: version byte 1, blob base fee scalar in bytes [24,28),
    ///         base fee scalar in bytes [28,32).
    uint256 public scalar;

    /// @notice The batcher, as its address left-padded to 32 bytes.
    bytes32 public batcherHash;

    /// @notice L2 block gas limit.
    uint64 public gasLimit;

    /// @notice Ecotone base fee scalar.
    uint32 public basefeeScalar;

    /// @notice Ecotone blob base fee scalar.
    uint32 public blobbasefeeScalar;

    /// @notice Signer of unsafe (gossiped) L2 blocks.
    address public unsafeBlockSigner;

    /// @notice Holocene EIP-1559 base fee change denominator.
    uint32 public eip1559Denominator;

    /// @notice Holocene EIP-1559 elasticity multiplier.
    uint32 public eip1559Elasticity;

    /// @notice Isthmus operator fee scalar.
    uint32 public operatorFeeScalar;

    /// @notice Isthmus operator fee constant.
    uint64 public operatorFeeConstant;

    /// @notice Jovian minimum base fee, in wei (0: none).
    uint64 public minBaseFee;

    /// @notice Jovian DA footprint gas scalar (0: the protocol default).
    uint16 public daFootprintGasScalar;

    /// @notice The configuration changed.
    /// @param version    Encoding version (0).
    /// @param updateType What changed.
    /// @param data       ABI encoding of the new value(s).
    event ConfigUpdate(uint256 indexed version, UpdateType indexed updateType, bytes data);

    /// @notice Ownership moved from `previousOwner` to `newOwner`.
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    modifier onlyOwner() {
        require(msg.sender == owner, "Ownable: caller is not the owner");
        _;
    }

    /// @notice Sets the owner and the initial configuration, emitting one `ConfigUpdate` per value
    ///         in update-type order (the EIP-1559 parameters only when given).
    constructor(address _owner, InitialConfig memory _config) {
        _transferOwnership(_owner);
        _setBatcherHash(_config.batcherHash);
        _setGasConfigEcotone(_config.basefeeScalar, _config.blobbasefeeScalar);
        _setGasLimit(_config.gasLimit);
        _setUnsafeBlockSigner(_config.unsafeBlockSigner);
        if (_config.eip1559Denominator != 0 || _config.eip1559Elasticity != 0) {
            _setEIP1559Params(_config.eip1559Denominator, _config.eip1559Elasticity);
        }
        _setOperatorFeeScalars(_config.operatorFeeScalar, _config.operatorFeeConstant);
        _setMinBaseFee(_config.minBaseFee);
        _setDAFootprintGasScalar(_config.daFootprintGasScalar);
    }

    /// @notice Hands the contract to `_newOwner`.
    function transferOwnership(address _newOwner) external onlyOwner {
        require(_newOwner != address(0), "Ownable: new owner is the zero address");
        _transferOwnership(_newOwner);
    }

    /// @notice Smallest gas limit `setGasLimit` accepts.
    function minimumGasLimit() external pure returns (uint64) {
        return MINIMUM_GAS_LIMIT;
    }

    /// @notice Largest gas limit `setGasLimit` accepts.
    function maximumGasLimit() external pure returns (uint64) {
        return MAXIMUM_GAS_LIMIT;
    }

    /// @notice Update type 0: the batcher (an address left-padded to 32 bytes).
    function setBatcherHash(bytes32 _batcherHash) external onlyOwner {
        _setBatcherHash(_batcherHash);
    }

    /// @notice Update type 1: the Ecotone fee scalars.
    function setGasConfigEcotone(uint32 _basefeeScalar, uint32 _blobbasefeeScalar) external onlyOwner {
        _setGasConfigEcotone(_basefeeScalar, _blobbasefeeScalar);
    }

    /// @notice Update type 2: the L2 block gas limit.
    function setGasLimit(uint64 _gasLimit) external onlyOwner {
        _setGasLimit(_gasLimit);
    }

    /// @notice Update type 3: the unsafe block signer.
    function setUnsafeBlockSigner(address _unsafeBlockSigner) external onlyOwner {
        _setUnsafeBlockSigner(_unsafeBlockSigner);
    }

    /// @notice Update type 4: the EIP-1559 denominator and elasticity (both at least 1).
    function setEIP1559Params(uint32 _denominator, uint32 _elasticity) external onlyOwner {
        _setEIP1559Params(_denominator, _elasticity);
    }

    /// @notice Update type 5: the operator fee scalar and constant.
    function setOperatorFeeScalars(uint32 _operatorFeeScalar, uint64 _operatorFeeConstant) external onlyOwner {
        _setOperatorFeeScalars(_operatorFeeScalar, _operatorFeeConstant);
    }

    /// @notice Update type 6: the minimum base fee (0 disables it).
    function setMinBaseFee(uint64 _minBaseFee) external onlyOwner {
        _setMinBaseFee(_minBaseFee);
    }

    /// @notice Update type 7: the DA footprint gas scalar.
    function setDAFootprintGasScalar(uint16 _daFootprintGasScalar) external onlyOwner {
        _setDAFootprintGasScalar(_daFootprintGasScalar);
    }

    function _transferOwnership(address _newOwner) internal {
        address previous = owner;
        owner = _newOwner;
        emit OwnershipTransferred(previous, _newOwner);
    }

    function _setBatcherHash(bytes32 _batcherHash) internal {
        batcherHash = _batcherHash;
        emit ConfigUpdate(VERSION, UpdateType.BATCHER, abi.encode(_batcherHash));
    }

    function _setGasConfigEcotone(uint32 _basefeeScalar, uint32 _blobbasefeeScalar) internal {
        basefeeScalar = _basefeeScalar;
        blobbasefeeScalar = _blobbasefeeScalar;
        scalar = (ECOTONE_SCALAR_VERSION << 248) | (uint256(_blobbasefeeScalar) << 32) | uint256(_basefeeScalar);
        emit ConfigUpdate(VERSION, UpdateType.FEE_SCALARS, abi.encode(overhead, scalar));
    }

    function _setGasLimit(uint64 _gasLimit) internal {
        require(_gasLimit >= MINIMUM_GAS_LIMIT, "SystemConfig: gas limit too low");
        require(_gasLimit <= MAXIMUM_GAS_LIMIT, "SystemConfig: gas limit too high");
        gasLimit = _gasLimit;
        emit ConfigUpdate(VERSION, UpdateType.GAS_LIMIT, abi.encode(_gasLimit));
    }

    function _setUnsafeBlockSigner(address _unsafeBlockSigner) internal {
        unsafeBlockSigner = _unsafeBlockSigner;
        emit ConfigUpdate(VERSION, UpdateType.UNSAFE_BLOCK_SIGNER, abi.encode(_unsafeBlockSigner));
    }

    function _setEIP1559Params(uint32 _denominator, uint32 _elasticity) internal {
        require(_denominator >= 1, "SystemConfig: denominator must be >= 1");
        require(_elasticity >= 1, "SystemConfig: elasticity must be >= 1");
        eip1559Denominator = _denominator;
        eip1559Elasticity = _elasticity;
        emit ConfigUpdate(VERSION, UpdateType.EIP_1559_PARAMS, abi.encode((uint256(_denominator) << 32) | uint256(_elasticity)));
    }

    function _setOperatorFeeScalars(uint32 _operatorFeeScalar, uint64 _operatorFeeConstant) internal {
        operatorFeeScalar = _operatorFeeScalar;
        operatorFeeConstant = _operatorFeeConstant;
        emit ConfigUpdate(
            VERSION, UpdateType.OPERATOR_FEE_PARAMS, abi.encode((uint256(_operatorFeeScalar) << 64) | uint256(_operatorFeeConstant))
        );
    }

    function _setMinBaseFee(uint64 _minBaseFee) internal {
        minBaseFee = _minBaseFee;
        emit ConfigUpdate(VERSION, UpdateType.MIN_BASE_FEE, abi.encode(_minBaseFee));
    }

    function _setDAFootprintGasScalar(uint16 _daFootprintGasScalar) internal {
        daFootprintGasScalar = _daFootprintGasScalar;
        emit ConfigUpdate(VERSION, UpdateType.DA_FOOTPRINT_GAS_SCALAR, abi.encode(_daFootprintGasScalar));
    }
}
