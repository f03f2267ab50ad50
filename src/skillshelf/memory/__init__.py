"""skillshelf.memory"""
