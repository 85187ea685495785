// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title OptimismPortal (basalt devnet)
/// @notice The deposit entry of a local rollup's L1: the part of the OP Stack OptimismPortal that
///         L2 derivation reads. It checks a deposit as the real portal does where derivation
///         depends on it and emits the real `TransactionDeposited` event (version 0, packed
///         opaque data), so a rollup node derives the same deposit transactions from it as from
///         the portal on Ethereum. No proxy, no withdrawals, no fault proofs, no resource
///         metering: ether sent with a deposit (the L2 mint) stays locked here.
/// @dev    Facts from the OP specs (deposits.md "Deposit Contract", "Address Aliasing") and the
///         OptimismPortal's interface; see src/devnet/README.md.
contract OptimismPortal {
    /// @notice Version of the `TransactionDeposited` encoding (the only one derivation accepts).
    uint256 public constant DEPOSIT_VERSION = 0;

    /// @notice L2 gas limit of a deposit made by sending ether to the portal (`receive`).
    uint64 public constant RECEIVE_DEFAULT_GAS_LIMIT = 100_000;

    /// @notice Largest calldata of one deposit, in bytes.
    uint256 public constant MAX_DEPOSIT_DATA_BYTES = 120_000;

    /// @notice Added (mod 2^160) to a contract caller's address: its L2 alias.
    uint160 internal constant ALIAS_OFFSET = uint160(0x1111000000000000000000000000000000001111);

    /// @notice A deposit into L2. `opaqueData` packs mint (uint256), value (uint256), gas limit
    ///         (uint64), creation flag (uint8) and calldata.
    event TransactionDeposited(address indexed from, address indexed to, uint256 indexed version, bytes opaqueData);

    /// @notice A contract creation must name no target (`_to` must be the zero address).
    error BadTarget();

    /// @notice The gas limit is below `minimumGasLimit(_data.length)`.
    error SmallGasLimit();

    /// @notice The calldata exceeds `MAX_DEPOSIT_DATA_BYTES`.
    error LargeCalldata();

    /// @notice Sending ether deposits it to the sender's own address on L2 (aliased for a contract).
    receive() external payable {
        depositTransaction(msg.sender, msg.value, RECEIVE_DEFAULT_GAS_LIMIT, false, bytes(""));
    }

    /// @notice The smallest L2 gas limit a deposit of `_byteCount` calldata bytes may ask for.
    function minimumGasLimit(uint64 _byteCount) public pure returns (uint64) {
        return _byteCount * 16 + 21_000;
    }

    /// @notice Deposits a transaction into L2.
    /// @param _to         L2 recipient; the zero address for a creation.
    /// @param _value      Wei transferred on L2 from the sender to `_to` (the sender must have it there).
    /// @param _gasLimit   L2 gas limit of the deposit.
    /// @param _isCreation Whether the deposit creates a contract (with `_data` as its init code).
    /// @param _data       L2 calldata (or init code).
    function depositTransaction(
        address _to,
        uint256 _value,
        uint64 _gasLimit,
        bool _isCreation,
        bytes memory _data
    )
        public
        payable
    {
        if (_isCreation && _to != address(0)) revert BadTarget();
        if (_gasLimit < minimumGasLimit(uint64(_data.length))) revert SmallGasLimit();
        if (_data.length > MAX_DEPOSIT_DATA_BYTES) revert LargeCalldata();

        // A contract cannot sign for its address on L2, so its deposits come from the alias.
        address from = msg.sender;
        if (msg.sender != tx.origin) {
            unchecked {
                from = address(uint160(msg.sender) + ALIAS_OFFSET);
            }
        }

        emit TransactionDeposited(
            from, _to, DEPOSIT_VERSION, abi.encodePacked(msg.value, _value, _gasLimit, _isCreation, _data)
        );
    }
}
